//go:build unix

package localfile

import (
	"os"
	"path/filepath"
	"strings"
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
