package daemon

import (
	"errors"
	"os"
	"strings"

	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/keychain"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/policy"
	"github.com/dvvhq/dvv/pkg/wire"
)

// grantFor resolves an attach request's token. No token is the socket's
// owner (see docs/security.md for why).
func (d *Daemon) grantFor(token string) (Grant, error) {
	if token == "" {
		return policy.Owner(), nil
	}
	if d.cfg.Services.Tokens == nil {
		return Grant{}, wire.Errorf(wire.PolicyDenied, "this dvvd keeps no tokens, so none can be verified")
	}
	g, err := d.cfg.Services.Tokens.Verify(token)
	if err != nil {
		return Grant{}, wire.Errorf(wire.PolicyDenied, "%v", err)
	}
	return g, nil
}

// authorize is the one access check every op passes: the attachment's grant
// must carry what the request needs, and its token must still be valid.
func (d *Daemon) authorize(a *attachment, req *request) error {
	if a.grant.TokenID != "" && d.cfg.Services.Tokens != nil && !d.cfg.Services.Tokens.Valid(a.grant.TokenID) {
		return wire.Errorf(wire.PolicyDenied, "token %s was revoked", a.grant.TokenID)
	}
	if e := a.grant.Allow(d.cfg.Ops, req.args); e != nil {
		return e
	}
	return nil
}

func (d *Daemon) hostsStore() (*hosts.Store, error) {
	if d.cfg.Services.Hosts == nil {
		return nil, wire.Errorf(wire.Unsupported, "this dvvd runs without saved hosts")
	}
	return d.cfg.Services.Hosts, nil
}

// findHost looks a host up among saved hosts, ~/.ssh/config entries and
// discovered machines.
func (d *Daemon) findHost(id string) (hosts.Host, bool) {
	if s := d.cfg.Services.Hosts; s != nil {
		if h, ok := s.Get(id); ok {
			return h, true
		}
	}
	if d.cfg.Services.SSHConfig != "" {
		for _, h := range hosts.SSHConfigHosts(d.cfg.Services.SSHConfig) {
			if h.ID == id || h.Name == id {
				return h, true
			}
		}
	}
	if b := d.cfg.Services.Discovery; b != nil {
		if h, ok := b.Get(id); ok {
			return hosts.Host{ID: h.ID, Name: h.Name, Protocol: h.Protocol, Address: h.Address, Port: h.Port, Source: hosts.SourceMDNS}, true
		}
	}
	return hosts.Host{}, false
}

// hostTarget builds a dial target for a saved host, reading its credential
// from the keychain here, inside dvvd.
func (d *Daemon) hostTarget(id string) (limb.Target, error) {
	return d.hostTargetWith(id, "")
}

// hostTargetWith is hostTarget with a password given for this open, which
// is used instead of the saved one (the keychain is then not asked).
func (d *Daemon) hostTargetWith(id, password string) (limb.Target, error) {
	h, found := d.findHost(id)
	if !found {
		return limb.Target{}, wire.Errorf(wire.NotFound, "no saved host %q; list them with hosts", id)
	}
	t := limb.Target{Protocol: h.Protocol, Address: h.Address, Port: h.Port, User: h.User, Domain: h.Domain,
		SSHPort: h.SSHPort, SSHUser: h.SSHUser, Record: h.Record, Machine: h.Machine}
	t.Password = password
	if kc := d.cfg.Services.Keychain; kc != nil && password == "" && h.Source != hosts.SourceSSHConfig && h.Source != hosts.SourceMDNS {
		secret, err := kc.Get(h.ID)
		switch {
		case err == nil:
			t.Password = secret
		case errors.Is(err, keychain.ErrNotFound):
		case h.Keychain != nil && !*h.Keychain && !credentialsFileError(err):
			// Saved without a password: an unreachable keychain holds nothing for it.
		default:
			return t, keychain.WireError(err)
		}
	}
	if h.Source == hosts.SourceSSHConfig {
		// Let the SSH layer resolve the alias through ~/.ssh/config itself.
		t.Address = h.Name
	}
	return t, nil
}

// credentialsFileError tells a refused credentials file (mode, owner),
// which the user must still hear about, from an unreachable keychain.
func credentialsFileError(err error) bool {
	msg := err.Error()
	if d := os.Getenv("CREDENTIALS_DIRECTORY"); d != "" && strings.Contains(msg, d) {
		return true
	}
	return strings.Contains(msg, keychain.CredentialsPath())
}

// checkAddresses refuses, before anything else sees them, addresses that
// are not [user@]host[:port] (hosts.ParseAddress) and users that carry a
// password: such an address would otherwise become a limb's host name and
// be logged and shown everywhere.
func checkAddresses(req *request) error {
	g := req.gist()
	proto := g.Protocol
	if req.OpName == wire.OpHostTrust && proto == "" {
		proto = wire.ProtoSSH
	}
	check := func(protocol, a string) error {
		if a == "" {
			return nil
		}
		_, err := hosts.ParseAddress(protocol, a)
		return err
	}
	for _, a := range append([]string{g.Address}, g.Addresses...) {
		if err := check(proto, a); err != nil {
			return err
		}
	}
	if h := g.Host; h != nil {
		if err := check(strings.ToLower(h.Protocol), h.Address); err != nil {
			return err
		}
		for _, u := range []string{h.User, h.SSHUser} {
			if err := hosts.CheckUser(u); err != nil {
				return err
			}
		}
	}
	return nil
}
