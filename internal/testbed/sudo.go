package testbed

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// SSHUser creates a throw-away local account that logs in to s with s's
// client key, and, when asRoot is true, a sudoers.d drop-in letting it run
// anything as root without a password. Both are removed when the test
// ends. It returns the account's name and its home directory (owned by
// it). Root only: it changes the machine's accounts and sudo rules, so it
// is for test machines (CI runs the tests as root).
func (s *SSHD) SSHUser(t testing.TB, asRoot bool) (name, home string) {
	t.Helper()
	Need(t, "useradd", "userdel", "usermod", "sudo", "visudo")
	NeedRoot(t, "creating a throw-away SSH user")
	name = fmt.Sprintf("dvvsu%d", time.Now().UnixNano()%1_000_000_000)
	home = filepath.Join(s.Dir, "home-"+name)
	if out, err := exec.Command("useradd", "-M", "-d", home, "-s", "/bin/sh", name).CombinedOutput(); err != nil {
		t.Fatalf("useradd: %v %s", err, out)
	}
	t.Cleanup(func() {
		s.KillSessions() // userdel refuses an account with processes left
		exec.Command("userdel", name).Run()
	})
	// A new account's password is locked ("!"), and sshd without PAM
	// refuses locked accounts even for keys; "*" is no password at all.
	if out, err := exec.Command("usermod", "-p", "*", name).CombinedOutput(); err != nil {
		t.Fatalf("usermod: %v %s", err, out)
	}
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("chown", name+":", home).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v %s", err, out)
	}
	// sshd reads the authorized keys as the user: the server's directory
	// (and the test's directory above it) must let it through.
	for _, d := range []string{filepath.Dir(s.Dir), s.Dir} {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	if asRoot {
		dropIn := filepath.Join("/etc/sudoers.d", "dvvtest-"+name)
		rule := name + " ALL=(root) NOPASSWD: ALL\n"
		if err := os.WriteFile(dropIn, []byte(rule), 0o440); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(dropIn) })
		if out, err := exec.Command("visudo", "-cf", dropIn).CombinedOutput(); err != nil {
			t.Fatalf("visudo refuses the drop-in: %v %s", err, strings.TrimSpace(string(out)))
		}
	}
	return name, home
}
