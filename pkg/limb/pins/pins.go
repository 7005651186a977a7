// Package pins keeps the TLS certificates of VNC servers trusted on first
// use: one line per "host:port fingerprint" in $XDG_CONFIG_HOME/dvv/known_certs
// (the user's config directory elsewhere). Fingerprints are SHA-256 in the
// colon-separated hex form openssl prints.
package pins

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/dvvhq/dvv/pkg/hosts/configfile"
)

// File is the pin file's name inside the dvv config directory.
const File = "known_certs"

var mu sync.Mutex // serialises writers inside this process

// Path is where pins are kept: $XDG_CONFIG_HOME/dvv/known_certs, or the
// platform's user config directory.
func Path() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no config directory for certificate pins: %w", err)
	}
	return filepath.Join(dir, "dvv", File), nil
}

// Lookup returns the trusted fingerprint for hostport.
func Lookup(hostport string) (fingerprint string, ok bool, err error) {
	p, err := Path()
	if err != nil {
		return "", false, err
	}
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) == 2 && fields[0] == hostport {
			fingerprint, ok = fields[1], true // the last line for a host wins
		}
	}
	return fingerprint, ok, s.Err()
}

// Same reports whether two fingerprints are equal, ignoring case, colons
// and an "SHA256:" prefix.
func Same(a, b string) bool {
	norm := func(s string) string {
		return strings.ToUpper(strings.ReplaceAll(strings.TrimPrefix(s, "SHA256:"), ":", ""))
	}
	return norm(a) == norm(b)
}

// ChangedError refuses to replace a pin with a different fingerprint: as
// for SSH host keys, a changed certificate is removed from the file by
// hand, after checking the machine out of band.
type ChangedError struct {
	HostPort, Pinned, Fingerprint string
}

func (e *ChangedError) Error() string {
	return fmt.Sprintf("%s is already trusted with %s, not %s", e.HostPort, e.Pinned, e.Fingerprint)
}

// Trust records fingerprint for hostport. Trusting the pinned fingerprint
// again is a no-op; a different one is a *ChangedError.
func Trust(hostport, fingerprint string) error {
	if old, ok, err := Lookup(hostport); err != nil {
		return err
	} else if ok {
		if Same(old, fingerprint) {
			return nil
		}
		return &ChangedError{HostPort: hostport, Pinned: old, Fingerprint: fingerprint}
	}
	return Replace(hostport, fingerprint)
}

// Replace records fingerprint for hostport whatever was pinned before: what
// a person does after verifying a changed certificate out of band.
func Replace(hostport, fingerprint string) error {
	if strings.ContainsAny(hostport, " \t\n") || strings.ContainsAny(fingerprint, " \t\n") || hostport == "" || fingerprint == "" {
		return fmt.Errorf("bad host %q or fingerprint %q", hostport, fingerprint)
	}
	mu.Lock()
	defer mu.Unlock()
	p, err := Path()
	if err != nil {
		return err
	}
	var keep []string
	if b, err := os.ReadFile(p); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			fields := strings.Fields(line)
			if len(fields) == 0 || fields[0] == hostport {
				continue
			}
			keep = append(keep, line)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	keep = append(keep, hostport+" "+strings.ToUpper(fingerprint))
	// A temp file of its own, not p+".tmp": dvvd and a dvv trusting a
	// certificate may write at once.
	return configfile.WriteAtomic(p, []byte(strings.Join(keep, "\n")+"\n"))
}
