package sshx

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// HostKeyError says the server's host key is not trusted: unknown (never
// seen) or changed (differs from the one in known_hosts).
type HostKeyError struct {
	Address     string // host or host:port as known_hosts names it
	Changed     bool
	Fingerprint string // SHA256:… of the key the server presented
	KeyType     string
	KnownFile   string // where a changed key is recorded
	KnownLine   int
}

func (e *HostKeyError) Error() string {
	if e.Changed {
		return fmt.Sprintf("host key for %s CHANGED: server presents %s %s, %s:%d says otherwise",
			e.Address, e.KeyType, e.Fingerprint, e.KnownFile, e.KnownLine)
	}
	return fmt.Sprintf("host key for %s is not trusted yet: %s %s", e.Address, e.KeyType, e.Fingerprint)
}

// hostKeyChecker checks keys against known_hosts files and tells which
// algorithms to ask for, so that a server with several keys presents the
// one already trusted (as OpenSSH orders HostKeyAlgorithms).
type hostKeyChecker struct {
	files    []string
	callback ssh.HostKeyCallback // nil: no file exists, every host is unknown
}

func newHostKeyChecker(files []string) (*hostKeyChecker, error) {
	var existing []string
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			existing = append(existing, f)
		}
	}
	hc := &hostKeyChecker{files: files}
	if len(existing) == 0 {
		return hc, nil
	}
	cb, err := knownhosts.New(existing...)
	if err != nil {
		return nil, fmt.Errorf("reading known_hosts: %w", err)
	}
	hc.callback = cb
	return hc, nil
}

func (hc *hostKeyChecker) check(hostname string, remote net.Addr, key ssh.PublicKey) error {
	he := &HostKeyError{Address: knownhosts.Normalize(hostname), Fingerprint: ssh.FingerprintSHA256(key), KeyType: key.Type()}
	if hc.callback == nil {
		return he
	}
	err := hc.callback(hostname, remote, key)
	var ke *knownhosts.KeyError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ke):
		if len(ke.Want) > 0 {
			he.Changed = true
			he.KnownFile, he.KnownLine = ke.Want[0].Filename, ke.Want[0].Line
		}
		return he
	default:
		var re *knownhosts.RevokedError
		if errors.As(err, &re) {
			he.Changed = true
			he.KnownFile, he.KnownLine = re.Revoked.Filename, re.Revoked.Line
			return he
		}
		return err
	}
}

// knownAlgorithms lists host key algorithms for the keys recorded for
// hostname, best first; empty when none is recorded.
func (hc *hostKeyChecker) knownAlgorithms(hostname string, remote net.Addr) []string {
	if hc.callback == nil {
		return nil
	}
	// Asking about a key no line can hold makes knownhosts list every key
	// it has for this host in the error.
	err := hc.callback(hostname, remote, probeKey{})
	var ke *knownhosts.KeyError
	if !errors.As(err, &ke) {
		return nil
	}
	var algos []string
	seen := map[string]bool{}
	for _, k := range ke.Want {
		for _, a := range algorithmsForKeyType(k.Key.Type()) {
			if !seen[a] {
				seen[a] = true
				algos = append(algos, a)
			}
		}
	}
	return algos
}

func algorithmsForKeyType(t string) []string {
	if t == ssh.KeyAlgoRSA {
		return []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA}
	}
	return []string{t}
}

// probeKey is a public key of a type no known_hosts line holds.
type probeKey struct{}

func (probeKey) Type() string                                 { return "dvv-probe" }
func (probeKey) Marshal() []byte                              { return []byte("\x00\x00\x00\x09dvv-probe") }
func (probeKey) Verify(data []byte, sig *ssh.Signature) error { return errors.New("probe key") }

// errGotKey stops a handshake once the host key is in hand.
var errGotKey = errors.New("host key fetched")

// FetchHostKey connects to address:port and returns the host key the
// server presents, without authenticating.
func FetchHostKey(ctx context.Context, address string, port int, algos []string) (ssh.PublicKey, error) {
	var got ssh.PublicKey
	cfg := &ssh.ClientConfig{
		User:              "dvv-hostkey-probe",
		HostKeyAlgorithms: algos,
		HostKeyCallback: func(_ string, _ net.Addr, key ssh.PublicKey) error {
			got = key
			return errGotKey
		},
	}
	hostport := net.JoinHostPort(address, strconv.Itoa(port))
	tcp, err := dialTCP(ctx, hostport)
	if err != nil {
		return nil, err
	}
	defer tcp.Close()
	conn := newHeardConn(tcp)
	stopOnCancel(ctx, conn)
	c, _, _, err := ssh.NewClientConn(conn, hostport, cfg)
	if c != nil {
		c.Close()
	}
	if got != nil {
		return got, nil
	}
	return nil, classifyHandshake(err, hostport, conn)
}

// AppendKnownHost records key for address:port in file, hashing the host
// name when hash is set (OpenSSH's HashKnownHosts).
func AppendKnownHost(file, address string, port int, key ssh.PublicKey, hash bool) error {
	hostport := net.JoinHostPort(address, strconv.Itoa(port))
	name := knownhosts.Normalize(hostport)
	if hash {
		name = knownhosts.HashHostname(name)
	}
	line := knownhosts.Line([]string{name}, key)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	// A file whose last line lacks its newline would glue the new entry to it.
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		if b, err := os.ReadFile(file); err == nil && !strings.HasSuffix(string(b), "\n") {
			line = "\n" + line
		}
	}
	if _, err := f.WriteString(line + "\n"); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// fakeAddr is a net.Addr for knownhosts' remote-address argument.
type fakeAddr string

func (a fakeAddr) Network() string { return "tcp" }
func (a fakeAddr) String() string  { return string(a) }
