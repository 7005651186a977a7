package system_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
)

// umaskOf reads a running process's umask from /proc (Linux 4.7+).
func umaskOf(t *testing.T, pid int) os.FileMode {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Umask:"); ok {
			m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32)
			if err != nil {
				t.Fatal(err)
			}
			return os.FileMode(m)
		}
	}
	t.Skip("this kernel does not show a process's umask")
	return 0
}

// TestFilesGetKeepsTheRemoteMode: `dvv files get` gives the local copy the
// remote file's permission bits less the umask, as scp does (an executable
// stays executable, a private file private), never setuid, setgid or
// sticky, whether dvv writes it from inline content or dvvd streams a big
// one itself (dvv and dvvd share the test's umask here); the modes are
// read on both sides' disks.
func TestFilesGetKeepsTheRemoteMode(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	d := startDaemonIn(t, "", s.Home)
	limb := openSSH(t, d, s)
	umask := umaskOf(t, d.proc.Cmd.Process.Pid)
	dir := t.TempDir()
	small := []byte("#!/bin/sh\necho hi\n")
	big := make([]byte, 17<<20) // over the 16 MiB that travel inline: dvvd writes the copy itself
	for _, c := range []struct {
		mode os.FileMode
		data []byte
	}{{0o755, small}, {0o640, small}, {0o600, small}, {0o444, small}, {0o4755 | os.ModeSetuid, small}, {0o750, big}} {
		mode := c.mode
		perm := mode.Perm()
		name := fmt.Sprintf("f%o-%d", perm, len(c.data))
		remote := filepath.Join(s.RemoteHome, name)
		if err := os.WriteFile(remote, c.data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(remote, mode); err != nil {
			t.Fatal(err)
		}
		local := filepath.Join(dir, name)
		d.must("files", "get", limb, remote, local)
		st, err := os.Stat(local)
		if err != nil {
			t.Fatal(err)
		}
		if want := perm &^ umask; st.Mode() != want {
			t.Errorf("remote %v (dvvd's umask %03o): the local copy is %v, want %v", mode, umask, st.Mode(), want)
		}
	}
}

// TestFilesGetNeverWritesThroughAPlantedPath: another user's symlink and
// file at the local path `files get` is given are replaced, not followed
// or written into.
func TestFilesGetNeverWritesThroughAPlantedPath(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "setpriv")
	testbed.NeedRoot(t, "planting files as another user")
	s := testbed.StartSSHD(t)
	d := startDaemonIn(t, "", s.Home)
	limb := openSSH(t, d, s)
	remote := filepath.Join(s.RemoteHome, "secret.txt")
	if err := os.WriteFile(remote, []byte("remote secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := plant(t, sharedStickyDir(t), "got-link", "got-file")
	for _, out := range []string{p.link, p.file} {
		d.must("files", "get", limb, remote, out)
	}
	p.check(t)
}
