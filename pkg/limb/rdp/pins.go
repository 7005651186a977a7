package rdp

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/dvvhq/dvv/pkg/rdp"
)

// Certificate pins: RDP servers mostly present self-signed certificates, so
// trust works like SSH host keys. The first sight of a certificate is
// refused with its fingerprint (HOSTKEY_UNKNOWN) until a person trusts it;
// a different certificate later is refused as changed (HOSTKEY_CHANGED).
//
// The file holds one line per server: "host:port SHA256-fingerprint"
// (fingerprint as upper-case hex pairs joined by colons). Lines starting
// with # are comments.

// KnownCertsFile is the default pin file: $XDG_CONFIG_HOME/dvv/known_certs
// (or the platform's user config directory).
func KnownCertsFile() string {
	if p := os.Getenv("DVV_KNOWN_CERTS"); p != "" {
		return p
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		dir = filepath.Join(os.TempDir(), "dvv-config")
	}
	return filepath.Join(dir, "dvv", "known_certs")
}

var pinMu sync.Mutex

// readPins loads the pin file; a missing file is an empty set.
func readPins(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pins := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) >= 2 {
			pins[f[0]] = strings.ToUpper(f[1])
		}
	}
	return pins, sc.Err()
}

// checkPin is the rdp.Config.VerifyCert hook for a pin file.
func checkPin(path, _ string) func(hostport string, der []byte, fp string) error {
	return func(hostport string, der []byte, fp string) error {
		pinMu.Lock()
		pins, err := readPins(path)
		pinMu.Unlock()
		if err != nil {
			return fmt.Errorf("reading trusted certificates %s: %w", path, err)
		}
		switch pinned, ok := pins[hostport]; {
		case !ok:
			return &rdp.CertError{HostPort: hostport, Fingerprint: fp}
		case pinned != fp:
			return &rdp.CertError{Changed: true, HostPort: hostport, Fingerprint: fp, Pinned: pinned}
		}
		return nil
	}
}

// pin records fp for hostport. It refuses to replace a different pin: a
// changed certificate must be removed from the file by hand first.
func pin(path, hostport, fp string) error {
	pinMu.Lock()
	defer pinMu.Unlock()
	pins, err := readPins(path)
	if err != nil {
		return err
	}
	if old, ok := pins[hostport]; ok {
		if old == fp {
			return nil
		}
		return &rdp.CertError{Changed: true, HostPort: hostport, Fingerprint: fp, Pinned: old}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(f, "%s %s\n", hostport, fp); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
