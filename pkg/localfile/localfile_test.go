//go:build unix

package localfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
)

func TestOwnDirMakesAMissingDirectoryPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	if err := OwnDir(dir); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("OwnDir made %v (%v), want a 0700 directory", fi, err)
	}
}

// Another user's directory, and this user's symlink to it, are refused.
// Handing a directory to another uid needs root, as the suite runs.
func TestOwnDirRefusesAnotherUsersDirectory(t *testing.T) {
	testbed.NeedRoot(t, "chown to another uid")
	base := t.TempDir()
	theirs := filepath.Join(base, "theirs")
	if err := os.Mkdir(theirs, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(theirs, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(theirs, link); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{theirs, link} {
		err := OwnDir(dir)
		if err == nil || !strings.Contains(err.Error(), "uid 65534") {
			t.Errorf("OwnDir(%s) = %v, want a refusal naming uid 65534", dir, err)
		}
	}
}

// CreateBeside makes a fresh file in the target's directory with the mode
// asked less the umask, never the target itself nor a name that exists.
func TestCreateBesideMakesANewFileInTheSameDirectory(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.bin")
	if err := os.Symlink(filepath.Join(dir, "victim"), target); err != nil {
		t.Fatal(err)
	}
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	a, err := CreateBeside(target, 0o777)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := CreateBeside(target, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if a.Name() == b.Name() || filepath.Dir(a.Name()) != dir || !strings.HasPrefix(filepath.Base(a.Name()), ".dvv-") {
		t.Fatalf("names %s and %s", a.Name(), b.Name())
	}
	for f, want := range map[*os.File]os.FileMode{a: 0o755, b: 0o600} {
		fi, err := f.Stat()
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", f.Name(), fi.Mode().Perm(), err, want)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "victim")); !os.IsNotExist(err) {
		t.Errorf("the symlink's target was created: %v", err)
	}
}

func TestOpenDeviceWritesIntoCharacterDevicesOnly(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "file")
	if err := os.WriteFile(regular, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path    string
		ok, bad bool
	}{{"/dev/null", true, false}, {regular, false, false}, {filepath.Join(dir, "missing"), false, false}, {fifo, false, true}} {
		f, ok, err := OpenDevice(c.path)
		if ok != c.ok || (err != nil) != c.bad {
			t.Errorf("%s: ok %v, err %v; want ok %v, an error %v", c.path, ok, err, c.ok, c.bad)
		}
		if f != nil {
			f.Close()
		}
	}
}
