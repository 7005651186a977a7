// Package policy decides what an attachment may do: capabilities, the role
// bundles that group them, the op→capability table, and the tokens that
// carry a role plus extra capabilities to an agent.
//
// Tokens exist to hand an agent LESS than the user has. A connection without
// a token is the user themself (the socket is 0600 in a 0700 directory and
// the peer uid is checked), so it gets Owner(), which includes exec.
package policy

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dvvhq/dvv/pkg/wire"
)

// Capability names one kind of authority. The set is closed: see All.
type Capability string

const (
	HostsRead      Capability = "hosts.read"      // list saved and discovered machines
	HostsWrite     Capability = "hosts.write"     // add, remove, trust saved machines (and their keychain entries)
	LimbsOpen      Capability = "limbs.open"      // open, close, reconnect limbs and groups
	Control        Capability = "control"         // take the lease; pointer, keys, text, terminal input
	ScreenRead     Capability = "screen.read"     // pixels and terminal text
	ClipboardRead  Capability = "clipboard.read"  // read the remote clipboard (often holds a password)
	ClipboardWrite Capability = "clipboard.write" // put text on the remote clipboard
	FilesRead      Capability = "files.read"      // list and fetch remote files
	FilesWrite     Capability = "files.write"     // write, rename, remove remote files
	Exec           Capability = "exec"            // run commands on a remote machine; in no bundle
	LocalFiles     Capability = "local.files"     // name a path on dvvd's own machine (files get to/put from, screen out, group_run outDir); in no bundle
	MachineControl Capability = "machine.control" // a limb's machine: power, reset, pause, snapshots (restore discards the guest's state); in no bundle
	HistoryRead    Capability = "history.read"    // read a limb's operation history
	TokensAdmin    Capability = "tokens.admin"    // create, list, revoke tokens
	Takeover       Capability = "takeover"        // act as the person at the keyboard (revokes agents' leases)
	DaemonAdmin    Capability = "daemon.admin"    // shut dvvd down
)

// All is every capability, in documentation order.
var All = []Capability{
	HostsRead, HostsWrite, LimbsOpen, Control, ScreenRead, ClipboardRead, ClipboardWrite,
	FilesRead, FilesWrite, Exec, LocalFiles, MachineControl, HistoryRead, TokensAdmin, Takeover, DaemonAdmin,
}

// Role names.
const (
	RoleObserver = "observer"
	RoleOperator = "operator"
	RoleOwner    = "owner"
)

// Roles lists the role names, weakest first.
var Roles = []string{RoleObserver, RoleOperator, RoleOwner}

// Unbundled capabilities are in no role: a token has them only when they are
// named on it. Both reach beyond the screen: exec runs arbitrary commands on
// the remote machine, local.files reads and writes the user's own files on
// the machine dvvd runs on (a put "from" ~/.ssh/id_ed25519 is exfiltration,
// a get "to" ~/.bashrc is local code execution). machine.control powers a
// machine off, resets it and restores snapshots, which throws away
// everything done on it since.
var Unbundled = []Capability{Exec, LocalFiles, MachineControl}

var observerCaps = []Capability{HostsRead, ScreenRead, HistoryRead}

var operatorCaps = append(append([]Capability{}, observerCaps...),
	LimbsOpen, Control, ClipboardWrite, FilesRead)

var ownerCaps = append(append([]Capability{}, operatorCaps...),
	HostsWrite, ClipboardRead, FilesWrite, TokensAdmin, Takeover, DaemonAdmin)

// Bundle returns the capabilities a role carries, or false for an unknown role.
func Bundle(role string) ([]Capability, bool) {
	switch role {
	case RoleObserver:
		return append([]Capability{}, observerCaps...), true
	case RoleOperator:
		return append([]Capability{}, operatorCaps...), true
	case RoleOwner:
		return append([]Capability{}, ownerCaps...), true
	}
	return nil, false
}

// ParseCapability checks a capability name against the closed set.
func ParseCapability(s string) (Capability, error) {
	for _, c := range All {
		if string(c) == s {
			return c, nil
		}
	}
	return "", wire.Errorf(wire.BadRequest, "unknown capability %q; known: %s", s, joinCaps(All))
}

// ParseCapabilities parses many capability names (as the wire carries them).
func ParseCapabilities(names []string) ([]Capability, error) {
	out := make([]Capability, 0, len(names))
	for _, n := range names {
		c, err := ParseCapability(n)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// Grant is what one attachment may do.
type Grant struct {
	Role    string
	Caps    map[Capability]bool
	TokenID string // "" for a connection without a token
}

// Has reports whether the grant carries c.
func (g Grant) Has(c Capability) bool { return g.Caps[c] }

// Missing returns the first capability in need that the grant lacks.
func (g Grant) Missing(need []Capability) (Capability, bool) {
	for _, c := range need {
		if !g.Caps[c] {
			return c, true
		}
	}
	return "", false
}

// List returns the grant's capabilities sorted by name (for hello/attach).
func (g Grant) List() []string {
	out := make([]string, 0, len(g.Caps))
	for c, ok := range g.Caps {
		if ok {
			out = append(out, string(c))
		}
	}
	sort.Strings(out)
	return out
}

// NewGrant builds the grant of a role plus extra capabilities.
func NewGrant(role string, extra []Capability, tokenID string) (Grant, error) {
	bundle, ok := Bundle(role)
	if !ok {
		return Grant{}, wire.Errorf(wire.BadRequest, "unknown role %q; roles are %s", role, strings.Join(Roles, ", "))
	}
	g := Grant{Role: role, Caps: make(map[Capability]bool, len(bundle)+len(extra)), TokenID: tokenID}
	for _, c := range bundle {
		g.Caps[c] = true
	}
	for _, c := range extra {
		if _, err := ParseCapability(string(c)); err != nil {
			return Grant{}, err
		}
		g.Caps[c] = true
	}
	return g, nil
}

// Owner is the grant of a connection without a token: the user themself.
// It holds every capability, exec and local.files included, because the
// socket only admits the user's own uid; tokens are how the user hands an
// agent less.
func Owner() Grant {
	g := Grant{Role: RoleOwner, Caps: make(map[Capability]bool, len(All))}
	for _, c := range All {
		g.Caps[c] = true
	}
	return g
}

// Allow checks a request against the grant, reading the op table t (nil:
// dvv's own). The denial is POLICY_DENIED and
// names the missing capability.
func (g Grant) Allow(t *wire.Table, m wire.Args) *wire.Error {
	c, missing := g.Missing(RequiredFor(t, m))
	if !missing {
		return nil
	}
	return g.deny(m.Op(), c)
}

// AllowOp is Allow for an op and action without the rest of a request.
func (g Grant) AllowOp(t *wire.Table, op, action string) *wire.Error {
	c, missing := g.Missing(Required(t, op, action))
	if !missing {
		return nil
	}
	return g.deny(op, c)
}

func (g Grant) deny(op string, c Capability) *wire.Error {
	who := "this connection"
	if g.TokenID != "" {
		who = fmt.Sprintf("token %s (role %s)", g.TokenID, g.Role)
	}
	e := wire.Errorf(wire.PolicyDenied, "%s lacks capability %q, which op %q needs", who, c, op)
	e.Next = fmt.Sprintf("Ask the owner for a token that names it: dvv token create --role %s --cap %s; do not retry.", g.roleOr(RoleObserver), c)
	return e
}

func (g Grant) roleOr(def string) string {
	if g.Role == "" {
		return def
	}
	return g.Role
}

// CheckDelegation refuses a token that would carry more than its creator
// holds, so an owner-role token without exec cannot mint one with exec.
func CheckDelegation(creator Grant, role string, extra []Capability) *wire.Error {
	want, err := NewGrant(role, extra, "")
	if err != nil {
		if we, ok := err.(*wire.Error); ok {
			return we
		}
		return wire.Errorf(wire.BadRequest, "%v", err)
	}
	for _, c := range All {
		if want.Caps[c] && !creator.Caps[c] {
			e := wire.Errorf(wire.PolicyDenied, "a token cannot hand out capability %q, which its creator does not hold", c)
			e.Next = "Create the token from a connection that holds it (the user's own shell, without DVV_TOKEN), or leave it off."
			return e
		}
	}
	return nil
}

func joinCaps(cs []Capability) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = string(c)
	}
	return strings.Join(s, ", ")
}
