//go:build darwin

package keychain

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// On macOS the secrets live in the login Keychain as generic passwords with
// service "dvv" and account = the host id, driven through /usr/bin/security.
// The secret is written on security's standard input in its interactive
// mode (-i), never on a command line where `ps` could see it.
const (
	securityTool    = "/usr/bin/security"
	macService      = Application
	secNotFoundExit = 44 // errSecItemNotFound
	commandTimeout  = 30 * time.Second
)

type loginKeychain struct{}

// Open returns the login Keychain, or *UnavailableError when the security
// tool is missing or the keychain cannot be reached.
func Open() (Keychain, error) {
	if _, err := exec.LookPath(securityTool); err != nil {
		return nil, &UnavailableError{Reason: securityTool + " is missing", Fix: "Run dvvd as a logged-in macOS user"}
	}
	if out, err := run(nil, "default-keychain"); err != nil {
		return nil, &UnavailableError{Reason: "no default keychain (" + strings.TrimSpace(string(out)) + ")", Fix: "Log in to the Mac's desktop session, or run `security default-keychain -s login.keychain`"}
	}
	return loginKeychain{}, nil
}

// OpenLazy returns the login Keychain; errors surface on use.
func OpenLazy() Keychain { return loginKeychain{} }

func run(stdin []byte, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, securityTool, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.Bytes(), err
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// quote makes one argument for security's interactive command parser.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

func (loginKeychain) Get(hostID string) (string, error) {
	if err := checkHostID(hostID); err != nil {
		return "", err
	}
	out, err := run(nil, "find-generic-password", "-s", macService, "-a", hostID, "-w")
	if exitCode(err) == secNotFoundExit {
		return "", ErrNotFound
	}
	if err != nil {
		return "", &UnavailableError{Reason: "reading the login Keychain failed (exit " + fmt.Sprint(exitCode(err)) + ")", Fix: "Unlock the login Keychain (Keychain Access) and retry"}
	}
	return strings.TrimSuffix(string(out), "\n"), nil
}

func (loginKeychain) Set(hostID, label, secret string) error {
	if err := checkHostID(hostID); err != nil {
		return err
	}
	if strings.ContainsAny(secret, "\n\r\x00") {
		return fmt.Errorf("a secret with a line break or NUL cannot be stored in the macOS Keychain by dvv")
	}
	if label == "" {
		label = "dvv " + hostID
	}
	line := strings.Join([]string{"add-generic-password", "-U", "-s", quote(macService), "-a", quote(hostID),
		"-l", quote(label), "-w", quote(secret)}, " ") + "\n"
	out, err := run([]byte(line), "-i")
	if err != nil || bytes.Contains(out, []byte("error")) {
		return &UnavailableError{Reason: scrub("storing in the login Keychain failed: "+strings.TrimSpace(string(out)), secret), Fix: "Unlock the login Keychain (Keychain Access) and retry"}
	}
	return nil
}

func (loginKeychain) Delete(hostID string) error {
	if err := checkHostID(hostID); err != nil {
		return err
	}
	for i := 0; i < 16; i++ { // one item per pass; duplicates are possible
		_, err := run(nil, "delete-generic-password", "-s", macService, "-a", hostID)
		if exitCode(err) == secNotFoundExit {
			return nil
		}
		if err != nil {
			return &UnavailableError{Reason: "deleting from the login Keychain failed", Fix: "Unlock the login Keychain (Keychain Access) and retry"}
		}
	}
	return nil
}

func (loginKeychain) Has(hostID string) bool {
	if checkHostID(hostID) != nil {
		return false
	}
	_, err := run(nil, "find-generic-password", "-s", macService, "-a", hostID)
	return err == nil
}
