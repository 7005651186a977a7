package daemon

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/keychain"
	"github.com/dvvhq/dvv/pkg/machine"
	"github.com/dvvhq/dvv/pkg/policy"
	"github.com/dvvhq/dvv/pkg/wire"
)

var _ = register(wire.OpHosts, typed(opHosts))

func opHosts(c *opCall, a wire.HostsArgs) (*wire.HostsAnswer, error) {
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

func opHostAdd(c *opCall, a wire.HostAddArgs) (*wire.HostAddAnswer, error) {
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

func opHostRemove(c *opCall, a wire.HostRemoveArgs) (*wire.HostRemoveAnswer, error) {
	s, err := c.d.hostsStore()
	if err != nil {
		return nil, err
	}
	id := a.HostID
	if id == "" {
		id = a.Name // host_remove reads the envelope's name as the host's
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
func opHostTrust(c *opCall, a wire.HostTrustArgs) (*wire.HostTrustAnswer, error) {
	if c.d.cfg.Services.Trust == nil {
		return nil, wire.Errorf(wire.Unsupported, "this dvvd cannot trust host keys")
	}
	addr, proto, port, err := c.d.trustTarget(a)
	if err != nil {
		return nil, err
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

// trustTarget is the machine a host_trust names: its address, or a saved
// host's own protocol, address and port (a port or protocol given beside
// hostId would name another endpoint than the one saved, so it is refused).
func (d *Daemon) trustTarget(a wire.HostTrustArgs) (addr, proto string, port int, err error) {
	switch {
	case a.HostID != "" && a.Address != "":
		return "", "", 0, wire.Errorf(wire.BadRequest, "pass hostId or address, not both")
	case a.HostID != "":
		if a.Port != nil || a.Protocol != "" {
			return "", "", 0, wire.Errorf(wire.BadRequest, "port and protocol come from the saved host; do not pass them beside hostId")
		}
		h, found := d.findHost(a.HostID)
		if !found {
			return "", "", 0, &wire.Error{Code: wire.NotFound, Message: fmt.Sprintf("no saved host %q", a.HostID),
				Next: "list them with hosts, or give the machine's address (dvv hosts trust HOST:PORT --protocol P)"}
		}
		return h.Address, h.Protocol, h.Port, nil
	case a.Address == "":
		return "", "", 0, &wire.Error{Code: wire.BadRequest, Message: "address is required (or hostId)",
			Next: "give the machine's address, port and protocol, or a saved host's name as hostId"}
	}
	proto = a.Protocol
	if proto == "" {
		proto = wire.ProtoSSH
	}
	if a.Port != nil {
		port = *a.Port
	}
	return a.Address, proto, port, nil
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

func opTokenCreate(c *opCall, a wire.TokenCreateArgs) (*wire.TokenCreateAnswer, error) {
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
	secret, info, err := ts.Create(role, caps, a.Name) // the envelope's name labels the token
	if err != nil {
		return nil, asBadRequest(err)
	}
	r := &wire.TokenCreateAnswer{}
	r.Token = secret
	r.Tokens = []wire.TokenInfo{info.Wire()}
	return r, nil
}

var _ = register(wire.OpTokenList, typed(opTokenList))

func opTokenList(c *opCall, _ wire.TokenListArgs) (*wire.TokenListAnswer, error) {
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

func opTokenRevoke(c *opCall, a wire.TokenRevokeArgs) (*wire.TokenRevokeAnswer, error) {
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
