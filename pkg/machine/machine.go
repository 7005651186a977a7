// Package machine is the hypervisor side of a limb: the machine behind a
// VM's screen, reached through QEMU's QMP socket (a bounded client of our own) or libvirt
// (go-libvirt). It answers a machine's state and performs power acts and
// snapshots. Every failure it returns is a *wire.Error.
//
// A machine is named by one string, the limb's (or saved host's) machine:
//
//	qmp:/path/to/qmp.sock
//	qmp+ssh://user@hypervisor[:port]/path/to/qmp.sock
//	libvirt:DOMAIN[?uri=qemu:///system|qemu:///session|qemu+ssh://user@host/system][&socket=/path]
//
// Each act opens its own connection and closes it: a QMP socket admits one
// client at a time, and the machine may have been restarted between acts.
package machine

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/dvvhq/dvv/pkg/wire"
)

// Backends.
const (
	QMP     = "qmp"
	QMPSSH  = "qmp+ssh"
	Libvirt = "libvirt"
)

// Spec is a parsed machine string.
type Spec struct {
	Backend string
	// Path is the QMP socket (local for qmp, on the hypervisor for qmp+ssh).
	Path string
	// SSH hop (qmp+ssh, and libvirt's qemu+ssh URIs).
	User string
	Host string
	Port int
	// Domain is libvirt's domain name; URI the libvirt connection URI
	// (qemu:///system when none is given); Socket a libvirt socket path
	// overriding the URI's default.
	Domain string
	URI    string
	Socket string
}

// maxSpec bounds a machine string: it is stored with the host and shown.
const maxSpec = 1024

func bad(format string, a ...any) *wire.Error {
	return &wire.Error{Code: wire.BadRequest, Message: "machine: " + fmt.Sprintf(format, a...),
		Next: "Name the machine as qmp:/path/qmp.sock, qmp+ssh://user@hypervisor/path/qmp.sock or libvirt:DOMAIN[?uri=qemu:///system]; see docs/machines.md."}
}

// Parse reads a machine string. It refuses anything carrying a password
// (credentials come from the keychain, ssh-agent and ~/.ssh, as for any
// host), so the string can be stored and answered as it is.
func Parse(s string) (Spec, error) {
	if len(s) > maxSpec {
		return Spec{}, bad("longer than %d bytes", maxSpec)
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return Spec{}, bad("control characters are not allowed")
		}
	}
	scheme, rest, ok := strings.Cut(s, ":")
	if !ok {
		return Spec{}, bad("%q names no backend", s)
	}
	switch scheme {
	case QMP:
		if !path.IsAbs(rest) || strings.HasPrefix(rest, "//") {
			return Spec{}, bad("qmp needs an absolute socket path, as qmp:/run/vm/qmp.sock")
		}
		return Spec{Backend: QMP, Path: path.Clean(rest)}, nil
	case QMPSSH:
		return parseQMPSSH(s)
	case Libvirt:
		return parseLibvirt(rest)
	}
	return Spec{}, bad("unknown backend %q", scheme)
}

// parseQMPSSH reads qmp+ssh://user@host[:port]/path.
func parseQMPSSH(s string) (Spec, error) {
	u, err := url.Parse(s)
	if err != nil {
		return Spec{}, bad("%v", err)
	}
	sp := Spec{Backend: QMPSSH, Path: u.Path}
	if err := sshHop(&sp, u); err != nil {
		return Spec{}, err
	}
	if !path.IsAbs(sp.Path) || u.RawQuery != "" || u.Fragment != "" {
		return Spec{}, bad("qmp+ssh needs the socket's absolute path on the hypervisor, as qmp+ssh://user@host/run/vm/qmp.sock")
	}
	sp.Path = path.Clean(sp.Path)
	return sp, nil
}

// parseLibvirt reads what follows libvirt: DOMAIN[?uri=…][&socket=…].
func parseLibvirt(rest string) (Spec, error) {
	dom, query, _ := strings.Cut(rest, "?")
	if dom == "" || strings.ContainsAny(dom, "/ ") {
		return Spec{}, bad("libvirt needs a domain name, as libvirt:win11")
	}
	sp := Spec{Backend: Libvirt, Domain: dom, URI: "qemu:///system"}
	q, err := libvirtQuery(query)
	if err != nil {
		return Spec{}, err
	}
	if v := q["uri"]; v != "" {
		sp.URI = v
	}
	if v := q["socket"]; v != "" {
		if !path.IsAbs(v) {
			return Spec{}, bad("socket must be an absolute path")
		}
		sp.Socket = path.Clean(v)
	}
	if err := libvirtURI(&sp); err != nil {
		return Spec{}, err
	}
	return sp, nil
}

// libvirtQuery reads uri= and socket=. Not url.ParseQuery: it reads the +
// of qemu+ssh as a space.
func libvirtQuery(query string) (map[string]string, error) {
	q := map[string]string{}
	for _, kv := range strings.Split(query, "&") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		v, err := url.PathUnescape(v)
		if err != nil {
			return nil, bad("%v", err)
		}
		if k != "uri" && k != "socket" {
			return nil, bad("unknown parameter %q (uri and socket are known)", k)
		}
		q[k] = v
	}
	return q, nil
}

// libvirtURI checks sp.URI: a local qemu:/// or a qemu+ssh:// hop, to
// /system or /session.
func libvirtURI(sp *Spec) error {
	u, err := url.Parse(sp.URI)
	if err != nil {
		return bad("uri: %v", err)
	}
	switch u.Scheme {
	case "qemu":
		if u.Host != "" || u.User != nil {
			return bad("uri %q names a host; reach a remote libvirt with qemu+ssh://user@host/system", sp.URI)
		}
	case "qemu+ssh":
		if err := sshHop(sp, u); err != nil {
			return err
		}
	default:
		return bad("uri %q: qemu:///system, qemu:///session and qemu+ssh://user@host/system are known", sp.URI)
	}
	if u.Path != "/system" && u.Path != "/session" {
		return bad("uri %q: the path is /system or /session", sp.URI)
	}
	return nil
}

func sshHop(sp *Spec, u *url.URL) error {
	if u.User != nil {
		if _, has := u.User.Password(); has {
			return bad("a password does not belong in the machine string; dvv uses your SSH keys and agent, as for any SSH host")
		}
		sp.User = u.User.Username()
	}
	sp.Host = u.Hostname()
	if sp.Host == "" {
		return bad("%s names no hypervisor host", u.Scheme)
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return bad("port %q is out of range", p)
		}
		sp.Port = n
	}
	return nil
}

// String is the machine string, canonical.
func (s Spec) String() string {
	switch s.Backend {
	case QMP:
		return QMP + ":" + s.Path
	case QMPSSH:
		return QMPSSH + "://" + s.hop() + s.Path
	case Libvirt:
		out := Libvirt + ":" + s.Domain + "?uri=" + s.URI
		if s.Socket != "" {
			out += "&socket=" + s.Socket
		}
		return out
	}
	return ""
}

func (s Spec) hop() string {
	h := s.Host
	if strings.Contains(h, ":") {
		h = "[" + h + "]"
	}
	if s.Port != 0 {
		h += ":" + strconv.Itoa(s.Port)
	}
	if s.User != "" {
		h = s.User + "@" + h
	}
	return h
}

// SSHDialer reaches a Unix socket on a hypervisor through SSH (OpenSSH's
// direct-streamlocal), with the user's keys, agent and known_hosts. Closing
// the connection closes the SSH connection under it.
type SSHDialer func(ctx context.Context, user, host string, port int, socket string) (net.Conn, error)

// Machine is one machine's hypervisor, connected for one act.
type Machine interface {
	State(ctx context.Context) (wire.MachineState, error)
	Pause(ctx context.Context) error
	Resume(ctx context.Context) error
	// Power presses the power button (ACPI): the guest decides.
	Power(ctx context.Context) error
	Reset(ctx context.Context) error
	// Stop cuts the power: the machine stops at once.
	Stop(ctx context.Context) error
	Start(ctx context.Context) error
	// SnapshotCreate reports whether the snapshot holds the memory.
	SnapshotCreate(ctx context.Context, name string) (memory bool, err error)
	Snapshots(ctx context.Context) ([]wire.Snapshot, error)
	SnapshotRestore(ctx context.Context, name string) error
	SnapshotDelete(ctx context.Context, name string) error
	Close() error
}

// Open connects to the machine s names.
func Open(ctx context.Context, s Spec, ssh SSHDialer) (Machine, error) {
	switch s.Backend {
	case QMP, QMPSSH:
		return openQMP(ctx, s, ssh)
	case Libvirt:
		return openLibvirt(ctx, s, ssh)
	}
	return nil, bad("unknown backend %q", s.Backend)
}

// CheckSnapshotName refuses a name a hypervisor would read as more than a
// name (QMP's savevm takes its argument on a monitor command line).
func CheckSnapshotName(name string) error {
	if name == "" || len(name) > 64 {
		return &wire.Error{Code: wire.BadRequest, Message: "a snapshot name is 1 to 64 characters",
			Next: "Name the snapshot with letters, digits, '.', '_' or '-', as clean-1."}
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' && i > 0
		if !ok {
			return &wire.Error{Code: wire.BadRequest, Message: fmt.Sprintf("snapshot name %q: only letters, digits, '.', '_' and '-' (not first '.')", name),
				Next: "Name the snapshot with letters, digits, '.', '_' or '-', as clean-1."}
		}
	}
	return nil
}

func unreachable(s Spec, err error) *wire.Error {
	if we, ok := err.(*wire.Error); ok {
		return we
	}
	return &wire.Error{Code: wire.Unreachable, Message: fmt.Sprintf("machine %s: %v", s, err),
		Next: "Check that the hypervisor runs and the machine string names its socket (docs/machines.md)."}
}

func refused(s Spec, act string, err error) *wire.Error {
	return &wire.Error{Code: wire.MachineRefused, Message: fmt.Sprintf("machine %s refused %s: %v", s, act, err),
		Next: "Read the machine's state (`dvv machine L state`), then act on it: resume a paused machine, start a shut-off one."}
}

func noSnapshot(s Spec, name string) *wire.Error {
	return &wire.Error{Code: wire.NotFound, Message: fmt.Sprintf("machine %s has no snapshot %q", s, name),
		Next: "List the snapshots (`dvv machine L snapshot list`) and name one of them."}
}
