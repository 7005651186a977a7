package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/dvvhq/dvv/pkg/discovery"
	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/keychain"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/machine"
	"github.com/dvvhq/dvv/pkg/policy"
	"github.com/dvvhq/dvv/pkg/wire"
)

// Grant is what an attachment may do.
type Grant = policy.Grant

// Services are the hosts/keychain/discovery/policy layer. Any may be nil:
// the ops that need it then answer with the reason.
type Services struct {
	Hosts     *hosts.Store
	SSHConfig string // path of ~/.ssh/config whose hosts are listed too ("" = none)
	Keychain  keychain.Keychain
	Discovery *discovery.Browser
	Tokens    *policy.TokenStore
	// Trust fetches a machine's SSH host key or TLS certificate and trusts
	// it (dvv hosts trust) when it is the fingerprint the user checked, or,
	// with none given, when acceptNew allows a new key; it returns the
	// presented fingerprint and whether it was trusted already.
	Trust func(protocol, address string, port int, checked string, acceptNew bool) (fingerprint string, already bool, err error)
	// HostKey compares an SSH endpoint's host key with known_hosts without
	// writing (`dvv doctor`); nil when SSH is not built in.
	HostKey func(ctx context.Context, address string, port int, user string) (fingerprint string, err error)
}

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

var _ = register(wire.OpHosts, typed(opHosts))

func opHosts(c *call, a wire.HostsArgs) (*wire.HostsAnswer, error) {
	d := c.d
	r := &wire.HostsAnswer{}
	r.Hosts = []wire.Host{}
	// discovered adds what discovery saw; saved hosts are listed either way
	// (the tool reference lists both).
	if a.Discovered {
		r.Discovered = []wire.Host{}
		if d.cfg.Services.Discovery == nil {
			r.DiscoveryNote = "discovery is off in this dvvd"
		} else {
			list, note := d.cfg.Services.Discovery.List()
			r.Discovered = append(r.Discovered, list...)
			r.DiscoveryNote = note
		}
	}
	kc := d.cfg.Services.Keychain
	if s := d.cfg.Services.Hosts; s != nil {
		for _, h := range s.List() {
			r.Hosts = append(r.Hosts, h.Wire(kc != nil && kc.Has(h.ID)))
		}
	}
	if d.cfg.Services.SSHConfig != "" {
		for _, h := range hosts.SSHConfigHosts(d.cfg.Services.SSHConfig) {
			r.Hosts = append(r.Hosts, h.Wire(false))
		}
	}
	return r, nil
}

var _ = register(wire.OpHostAdd, typed(opHostAdd))

func opHostAdd(c *call, a wire.HostAddArgs) (*wire.HostAddAnswer, error) {
	s, err := c.d.hostsStore()
	if err != nil {
		return nil, err
	}
	h := hosts.FromSpec(a.Host)
	if h.Machine != "" {
		sp, err := machine.Parse(h.Machine)
		if err != nil {
			return nil, err
		}
		h.Machine = sp.String()
	}
	kc := c.d.cfg.Services.Keychain
	if a.Password != "" && kc == nil {
		return nil, wire.Errorf(wire.KeychainMissing, "no keychain is configured, and dvv never stores a password anywhere else")
	}
	prev, existed := s.Get(h.Name)
	stored := a.Password != ""
	h.Keychain = &stored
	if !stored && existed { // the entry kept its password, if it had one
		h.Keychain = prev.Keychain
	}
	saved, err := s.Add(h)
	if err != nil {
		return nil, asBadRequest(err)
	}
	r := &wire.HostAddAnswer{}
	if a.Password != "" {
		label := fmt.Sprintf("dvv: %s (%s %s)", saved.Name, saved.Protocol, saved.Address)
		where, err := "keychain", error(nil)
		// No keychain answering (a headless machine): the layered keychain
		// falls back to the credentials file, and the answer says so.
		if sw, ok := kc.(interface {
			SetWhere(id, label, secret string) (string, error)
		}); ok {
			where, err = sw.SetWhere(saved.ID, label, a.Password)
		} else {
			err = kc.Set(saved.ID, label, a.Password)
		}
		if err != nil {
			if existed { // put the entry this call replaced back
				s.Add(prev)
			} else {
				s.Remove(saved.ID)
			}
			return nil, keychain.WireError(err)
		}
		r.Dispatched = "password stored in the keychain"
		if where == keychain.InFile {
			r.Dispatched = "no keychain answered; password stored in " + keychain.CredentialsPath() + " (mode 0600), which only dvvd reads"
		}
	}
	r.Hosts = []wire.Host{saved.Wire(kc != nil && kc.Has(saved.ID))}
	return r, nil
}

var _ = register(wire.OpHostRemove, typed(opHostRemove))

func opHostRemove(c *call, a wire.HostRemoveArgs) (*wire.HostRemoveAnswer, error) {
	s, err := c.d.hostsStore()
	if err != nil {
		return nil, err
	}
	id := a.HostID
	if id == "" {
		id = a.HostName()
	}
	h, err := s.RemoveHost(id)
	if errors.Is(err, hosts.ErrNotFound) {
		return nil, wire.Errorf(wire.NotFound, "no saved host %q", id)
	}
	if err != nil {
		return nil, asBadRequest(err)
	}
	if kc := c.d.cfg.Services.Keychain; kc != nil {
		// The host is gone already: its credentials-file line is found by
		// the name it had.
		var err error
		if dn, ok := kc.(interface {
			DeleteNamed(id string, names []string) error
		}); ok {
			err = dn.DeleteNamed(h.ID, []string{h.Name, h.ID})
		} else {
			err = kc.Delete(h.ID)
		}
		if err != nil {
			return nil, keychain.WireError(err)
		}
	}
	r := &wire.HostRemoveAnswer{}
	r.Hosts = []wire.Host{h.Wire(false)}
	return r, nil
}

var _ = register(wire.OpHostTrust, typed(opHostTrust))

// opHostTrust trusts a machine's SSH host key (or TLS certificate), after
// the user has checked the fingerprint an earlier HOSTKEY_UNKNOWN showed.
func opHostTrust(c *call, a wire.HostTrustArgs) (*wire.HostTrustAnswer, error) {
	if c.d.cfg.Services.Trust == nil {
		return nil, wire.Errorf(wire.Unsupported, "this dvvd cannot trust host keys")
	}
	addr := a.Address
	proto := a.Protocol
	if proto == "" {
		proto = wire.ProtoSSH
	}
	port := 0
	if a.Port != nil {
		port = *a.Port
	}
	if p, ok := wire.Protocol(proto); ok && port == 0 {
		port = c.d.defaultPort(p, addr)
	}
	if err := checkFingerprint(a.Fingerprint); err != nil {
		return nil, err
	}
	if a.Fingerprint != "" && a.AcceptNew {
		return nil, &wire.Error{Code: wire.BadRequest, Message: "fingerprint and acceptNew were both given; nothing was written",
			Next: "give the fingerprint you checked (--fingerprint) alone; acceptNew is for a key nobody checked"}
	}
	fp, already, err := c.d.cfg.Services.Trust(proto, addr, port, a.Fingerprint, a.AcceptNew)
	if err != nil {
		return nil, err
	}
	r := &wire.HostTrustAnswer{}
	r.Dispatched = fmt.Sprintf("trusted %s %s:%d with fingerprint %s", proto, addr, port, fp)
	if already {
		r.Dispatched = fmt.Sprintf("%s %s:%d was trusted already with fingerprint %s; nothing was written", proto, addr, port, fp)
	}
	return r, nil
}

// checkFingerprint refuses a fingerprint no server could present: it is
// echoed in messages, so it must be short and printable.
func checkFingerprint(fp string) error {
	if len(fp) > 200 || strings.IndexFunc(fp, func(r rune) bool { return r <= ' ' || r >= 0x7f }) >= 0 {
		return &wire.Error{Code: wire.BadRequest, Message: "the fingerprint has spaces, control or non-ASCII characters, or is over 200 bytes; nothing was written",
			Next: "give the fingerprint as ssh-keygen -l (SHA256:…) or openssl x509 -fingerprint -sha256 (AB:CD:…) prints it"}
	}
	return nil
}

func asBadRequest(err error) error {
	var we *wire.Error
	if errors.As(err, &we) {
		return we
	}
	return wire.Errorf(wire.BadRequest, "%v", err)
}

var _ = register(wire.OpTokenNew, typed(opTokenCreate))

func opTokenCreate(c *call, a wire.TokenCreateArgs) (*wire.TokenCreateAnswer, error) {
	ts := c.d.cfg.Services.Tokens
	if ts == nil {
		return nil, wire.Errorf(wire.Unsupported, "this dvvd keeps no tokens")
	}
	caps, err := policy.ParseCapabilities(a.Caps)
	if err != nil {
		return nil, asBadRequest(err)
	}
	role := a.Role
	if role == "" {
		return nil, wire.Errorf(wire.BadRequest, "role is required: %s", strings.Join(policy.Roles, ", "))
	}
	if e := policy.CheckDelegation(c.att.grant, role, caps); e != nil {
		return nil, e
	}
	secret, info, err := ts.Create(role, caps, a.Label())
	if err != nil {
		return nil, asBadRequest(err)
	}
	r := &wire.TokenCreateAnswer{}
	r.Token = secret
	r.Tokens = []wire.TokenInfo{info.Wire()}
	return r, nil
}

var _ = register(wire.OpTokenList, typed(opTokenList))

func opTokenList(c *call, _ wire.TokenListArgs) (*wire.TokenListAnswer, error) {
	ts := c.d.cfg.Services.Tokens
	r := &wire.TokenListAnswer{}
	r.Tokens = []wire.TokenInfo{}
	if ts != nil {
		for _, t := range ts.List() {
			r.Tokens = append(r.Tokens, t.Wire())
		}
	}
	return r, nil
}

var _ = register(wire.OpTokenRevok, typed(opTokenRevoke))

func opTokenRevoke(c *call, a wire.TokenRevokeArgs) (*wire.TokenRevokeAnswer, error) {
	ts := c.d.cfg.Services.Tokens
	if ts == nil {
		return nil, wire.Errorf(wire.Unsupported, "this dvvd keeps no tokens")
	}
	if err := ts.Revoke(a.TokenID); err != nil {
		if errors.Is(err, policy.ErrNotFound) {
			return nil, wire.Errorf(wire.NotFound, "no token %q", a.TokenID)
		}
		return nil, asBadRequest(err)
	}
	c.d.releaseToken(a.TokenID)
	return &wire.TokenRevokeAnswer{}, nil
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
