// Package hosts keeps the user's saved machines in
// $XDG_CONFIG_HOME/dvv/hosts.json (fallback ~/.config/dvv/hosts.json) and
// lists the Host entries of ~/.ssh/config beside them. No secret is ever in
// a Host or in the file: passwords live in the keychain under the host's ID.
//
// File format (version 1), mode 0600 in a 0700 directory:
//
//	{
//	  "version": 1,
//	  "hosts": [
//	    {"id": "h-1a2b3c4d", "name": "lab", "protocol": "vnc",
//	     "address": "10.0.0.5", "port": 5900, "user": "", "domain": "",
//	     "sshPort": 22, "sshUser": "pat"}
//	  ]
//	}
package hosts

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/dvvhq/dvv/pkg/hosts/configfile"
	"github.com/dvvhq/dvv/pkg/wire"
)

// FileVersion is the hosts.json format this build writes.
const FileVersion = 1

// Sources of a host, as wire.Host.Source says.
const (
	SourceSaved     = "saved"
	SourceSSHConfig = "ssh_config"
	SourceMDNS      = "mdns"
)

// ErrNotFound is returned for a host id or name that names no saved host.
// The daemon answers it NOT_FOUND.
var ErrNotFound = errors.New("no such saved host")

// Host is a saved machine.
type Host struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Protocol string `json:"protocol"` // vnc, rdp or ssh
	Address  string `json:"address"`
	Port     int    `json:"port"`
	User     string `json:"user,omitempty"`
	Domain   string `json:"domain,omitempty"`
	SSHPort  int    `json:"sshPort,omitempty"` // SSH sidecar of a desktop host (0: 22)
	SSHUser  string `json:"sshUser,omitempty"`
	Record   bool   `json:"record,omitempty"` // record every session (dvv record)
	// Machine is the host's hypervisor side (pkg/machine), checked when saved.
	Machine string `json:"machine,omitempty"`
	// Keychain says whether a password was stored in the keychain with the
	// host (nil: saved before dvv kept track). A host saved without one
	// opens without asking the keychain, which may not be reachable.
	Keychain *bool `json:"keychain,omitempty"`
	// Source is where the entry came from (SourceSaved, SourceSSHConfig).
	// It is not written to the file.
	Source string `json:"-"`
}

// Wire converts to the socket's shape; hasCredential comes from the keychain.
func (h Host) Wire(hasCredential bool) wire.Host {
	src := h.Source
	if src == "" {
		src = SourceSaved
	}
	return wire.Host{ID: h.ID, Name: h.Name, Protocol: h.Protocol, Address: h.Address, Port: h.Port,
		User: h.User, SSHPort: h.SSHPort, SSHUser: h.SSHUser, HasCredential: hasCredential, Source: src, Record: h.Record}
}

// FromSpec converts a host_add request's host.
func FromSpec(s wire.HostSpec) Host {
	return Host{Name: s.Name, Protocol: s.Protocol, Address: s.Address, Port: s.Port,
		User: s.User, Domain: s.Domain, SSHPort: s.SSHPort, SSHUser: s.SSHUser, Record: s.Record, Machine: s.Machine}
}

// DefaultPort is a protocol's usual port (0 for an unknown protocol).
func DefaultPort(protocol string) int {
	if p, ok := wire.Protocol(protocol); ok {
		return p.DefaultPort
	}
	return 0
}

// IDFor is a saved host's id: short, shell-friendly, and the same for the
// same name on every machine, so scripts can keep it.
func IDFor(name string) string {
	sum := sha256.Sum256([]byte(name))
	return "h-" + hex.EncodeToString(sum[:4])
}

type file struct {
	Version int    `json:"version"`
	Hosts   []Host `json:"hosts"`
}

// Store is the saved-hosts file. It is safe for concurrent use, and every
// change re-reads the file under a lock first, so two dvvd instances sharing
// it do not lose each other's changes.
type Store struct {
	path  string
	mu    sync.Mutex
	hosts []Host
}

// DefaultPath is $XDG_CONFIG_HOME/dvv/hosts.json.
func DefaultPath() string { return filepath.Join(configfile.Dir(), "hosts.json") }

// Open reads the file at path; a missing file is an empty store.
func Open(path string) (*Store, error) {
	s := &Store{path: path}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(); err != nil {
		return nil, err
	}
	return s, nil
}

// load reads the file; s.mu is held.
func (s *Store) load() error {
	b, err := configfile.Read(s.path)
	if err != nil {
		return fmt.Errorf("read saved hosts: %w", err)
	}
	var f file
	if len(b) > 0 {
		if err := json.Unmarshal(b, &f); err != nil {
			return fmt.Errorf("%s is not a dvv hosts file (%v); fix or move it away", s.path, err)
		}
		if f.Version > FileVersion {
			return fmt.Errorf("%s has format version %d, newer than this dvv (%d); upgrade dvv", s.path, f.Version, FileVersion)
		}
	}
	for i := range f.Hosts {
		f.Hosts[i].Source = SourceSaved
		repairAddress(&f.Hosts[i])
	}
	s.hosts = f.Hosts
	return nil
}

// List returns the saved hosts sorted by name. It re-reads the file, so a
// change by another dvvd shows; on a read error the last good list is kept.
func (s *Store) List() []Host {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.load()
	out := append([]Host(nil), s.hosts...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Get finds a saved host by id, then by name.
func (s *Store) Get(idOrName string) (Host, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.load()
	if i := s.index(idOrName); i >= 0 {
		return s.hosts[i], true
	}
	return Host{}, false
}

func (s *Store) index(idOrName string) int {
	for i, h := range s.hosts {
		if h.ID == idOrName {
			return i
		}
	}
	for i, h := range s.hosts {
		if h.Name == idOrName {
			return i
		}
	}
	return -1
}

// Add validates h, fills its defaults and id, and saves it, replacing a
// saved host of the same name. It returns the host as saved.
func (s *Store) Add(h Host) (Host, error) {
	if err := normalize(&h); err != nil {
		return Host{}, err
	}
	err := s.modify(func() error {
		for i, old := range s.hosts {
			if old.Name == h.Name {
				s.hosts[i] = h
				return nil
			}
		}
		s.hosts = append(s.hosts, h)
		return nil
	})
	if err != nil {
		return Host{}, err
	}
	return h, nil
}

// Remove deletes a saved host by id or name. Use RemoveHost to learn the
// id, which keys the host's keychain entry.
func (s *Store) Remove(idOrName string) error {
	_, err := s.RemoveHost(idOrName)
	return err
}

// RemoveHost is Remove returning the host removed, so the caller can delete
// its keychain entry by id.
func (s *Store) RemoveHost(idOrName string) (Host, error) {
	var gone Host
	err := s.modify(func() error {
		i := s.index(idOrName)
		if i < 0 {
			return fmt.Errorf("%w: %q (dvv hosts lists them)", ErrNotFound, idOrName)
		}
		gone = s.hosts[i]
		s.hosts = append(s.hosts[:i], s.hosts[i+1:]...)
		return nil
	})
	return gone, err
}

// modify runs a read-modify-write cycle under the mutex and the file lock.
func (s *Store) modify(change func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	release, err := configfile.Lock(s.path)
	if err != nil {
		return err
	}
	defer release()
	if err := s.load(); err != nil {
		return err
	}
	if err := change(); err != nil {
		return err
	}
	out := append([]Host(nil), s.hosts...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	b, err := json.MarshalIndent(file{Version: FileVersion, Hosts: out}, "", "  ")
	if err != nil {
		return err
	}
	if err := configfile.WriteAtomic(s.path, append(b, '\n')); err != nil {
		_ = s.load()
		return fmt.Errorf("write saved hosts: %w", err)
	}
	s.hosts = out
	return nil
}

func badRequest(format string, args ...any) error {
	return wire.Errorf(wire.BadRequest, format, args...)
}

// normalize validates a host and fills its defaults.
func normalize(h *Host) error {
	h.Name = strings.TrimSpace(h.Name)
	h.Address = strings.TrimSpace(h.Address)
	h.Protocol = strings.ToLower(strings.TrimSpace(h.Protocol))
	if err := checkName(h.Name); err != nil {
		return err
	}
	if _, ok := wire.Protocol(h.Protocol); !ok {
		return badRequest("protocol %q is not one of %s", h.Protocol, wire.ProtocolChoice())
	}
	if h.Address == "" {
		return badRequest("a host needs an address (--address)")
	}
	if err := splitAddress(h); err != nil {
		return err
	}
	if h.Port == 0 {
		h.Port = DefaultPort(h.Protocol)
	}
	if h.Port < 1 || h.Port > 65535 {
		return badRequest("port %d is outside 1-65535", h.Port)
	}
	if h.SSHPort < 0 || h.SSHPort > 65535 {
		return badRequest("ssh port %d is outside 1-65535", h.SSHPort)
	}
	// The sidecar is how a desktop reaches its files; a terminal host's
	// own connection already does.
	if wire.KindOf(h.Protocol) != wire.KindDesktop && (h.SSHPort != 0 || h.SSHUser != "") {
		return badRequest("--ssh-port and --ssh-user describe a desktop host's SSH sidecar; a %s host uses --port and --user", h.Protocol)
	}
	for _, f := range []struct{ what, v string }{{"user", h.User}, {"domain", h.Domain}, {"ssh user", h.SSHUser}} {
		if len(f.v) > 256 || hasControl(f.v) {
			return badRequest("%s has control characters or is over 256 bytes", f.what)
		}
		if strings.HasPrefix(f.v, "-") { // an option to any tool it is handed to
			return badRequest("%s starts with '-', which tools read as an option; no account or domain name does", f.what)
		}
	}
	for _, u := range []string{h.User, h.SSHUser} {
		if err := CheckUser(u); err != nil {
			return err
		}
	}
	h.ID = IDFor(h.Name)
	h.Source = SourceSaved
	return nil
}

func checkName(name string) error {
	if name == "" {
		return badRequest("a host needs a name")
	}
	if len(name) > 64 {
		return badRequest("host name %q is over 64 bytes", name)
	}
	for _, r := range name {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-_.@+", r)) {
			return badRequest("host name %q may hold letters, digits and - _ . @ + only", name)
		}
	}
	if looksLikeID(name) {
		return badRequest("host name %q looks like a host id; pick another", name)
	}
	return nil
}

// looksLikeID reports names that could be confused with an id of another
// host (saved, ssh config or discovered).
func looksLikeID(name string) bool {
	if len(name) == 10 && strings.HasPrefix(name, "h-") {
		_, err := hex.DecodeString(name[2:])
		return err == nil
	}
	return strings.HasPrefix(name, "ssh-") || strings.HasPrefix(name, "mdns-")
}

func hasControl(s string) bool {
	return strings.IndexFunc(s, unicode.IsControl) >= 0
}

// splitAddress checks a saved host's address as open does and moves a port
// or user written in it ("10.0.0.5:5975", "pat@build") to the host's own
// fields, so the address saved is the host alone.
func splitAddress(h *Host) error {
	ep, err := ParseAddress(h.Protocol, h.Address)
	if err != nil {
		return err
	}
	if ep.URL != "" {
		return nil
	}
	if ep.Port != 0 {
		if h.Port != 0 && h.Port != ep.Port {
			return &wire.Error{Code: wire.BadRequest, Message: fmt.Sprintf("port %d in the address conflicts with --port %d", ep.Port, h.Port),
				Next: "give the port once: in the address (HOST:PORT) or with --port"}
		}
		h.Port = ep.Port
	}
	if ep.User != "" {
		if h.User != "" && h.User != ep.User {
			return &wire.Error{Code: wire.BadRequest, Message: "the user in the address conflicts with --user",
				Next: "give the user once: in the address (USER@HOST) or with --user"}
		}
		h.User = ep.User
	}
	h.Address = ep.Host
	return nil
}

// repairAddress mends a host saved before addresses were split: "HOST:PORT"
// was stored whole beside the protocol's default port, and never connected.
// The port in the address is what the person meant. Anything else that does
// not parse is left as it was; open refuses it with the reason.
func repairAddress(h *Host) {
	ep, err := ParseAddress(h.Protocol, h.Address)
	if err != nil || ep.URL != "" || (ep.Port == 0 && ep.User == "") {
		return
	}
	fixed := *h
	if ep.Port != 0 && fixed.Port == DefaultPort(fixed.Protocol) {
		fixed.Port = 0
	}
	if splitAddress(&fixed) == nil {
		*h = fixed
	}
}
