package keychain

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const filePassword = "pw:with:colons and spaces"

func names(id string) []string {
	if id == "h-1" {
		return []string{"lab", "h-1"}
	}
	return []string{id}
}

// memKeychain stands behind the files in these tests (the real keychain
// is tested against gnome-keyring in secretservice_test.go).
type memKeychain map[string]string

func (m memKeychain) Get(id string) (string, error) {
	if s, ok := m[id]; ok {
		return s, nil
	}
	return "", ErrNotFound
}
func (m memKeychain) Set(id, _, s string) error { m[id] = s; return nil }
func (m memKeychain) Delete(id string) error    { delete(m, id); return nil }
func (m memKeychain) Has(id string) bool        { _, ok := m[id]; return ok }

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func TestCredentialsFile(t *testing.T) {
	t.Setenv("CREDENTIALS_DIRECTORY", "")
	dir := t.TempDir()
	path := filepath.Join(dir, "credentials")
	kc := WithFiles(memKeychain{"h-2": "from-keychain"}, path, names)

	if _, err := kc.Get("h-1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("no file: %v", err)
	}
	writeFile(t, path, "# lab machines\n\nother:nope\n lab :"+filePassword+"\n", 0o600)
	if s, err := kc.Get("h-1"); err != nil || s != filePassword {
		t.Fatalf("by name: %q %v", s, err)
	}
	if !kc.Has("h-1") || kc.Has("h-3") {
		t.Errorf("Has")
	}
	if s, err := kc.Get("h-2"); err != nil || s != "from-keychain" {
		t.Errorf("the keychain behind the file: %q %v", s, err)
	}

	// Readable by others, a symlink, a line without ':' — refused, and no
	// message carries the file's contents.
	writeFile(t, path, "lab:"+filePassword+"\n", 0o640)
	_, err := kc.Get("h-1")
	var ue *UnavailableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "chmod 600 "+path) || strings.Contains(err.Error(), filePassword) {
		t.Errorf("group-readable file: %v", err)
	}
	if kc.Has("h-1") {
		t.Errorf("Has trusts a group-readable file")
	}
	os.Remove(path)
	real := filepath.Join(dir, "real")
	writeFile(t, real, "lab:"+filePassword+"\n", 0o600)
	if err := os.Symlink(real, path); err != nil {
		t.Fatal(err)
	}
	if _, err := kc.Get("h-1"); !errors.As(err, &ue) || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("symlink: %v", err)
	}
	os.Remove(path)
	writeFile(t, path, "lab-without-a-colon-Zq9x\n", 0o600)
	if _, err := kc.Get("h-1"); !errors.As(err, &ue) || strings.Contains(err.Error(), "Zq9x") {
		t.Errorf("malformed line: %v", err)
	}
}

func TestSystemdCredentials(t *testing.T) {
	creds := t.TempDir()
	t.Setenv("CREDENTIALS_DIRECTORY", creds)
	writeFile(t, filepath.Join(creds, "dvv-lab"), filePassword+"\n", 0o400)
	kc := WithFiles(nil, filepath.Join(t.TempDir(), "none"), names)
	if s, err := kc.Get("h-1"); err != nil || s != filePassword {
		t.Fatalf("credential dvv-lab: %q %v", s, err)
	}
	if _, err := kc.Get("../h-1"); err == nil {
		t.Errorf("a path-like id was looked up")
	}
	if _, err := kc.Get("h-9"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown host: %v", err)
	}
}

// unavailable is a keychain nobody answers for (no session bus).
type unanswered struct{ memKeychain }

func (unanswered) Set(string, string, string) error {
	return &UnavailableError{Reason: "no session bus", Fix: "start one"}
}

// TestSetFallsBackToTheCredentialsFile: with no keychain answering, Set
// writes the host's line into a new 0600 file, replaces its old line and
// keeps everyone else's; a symlink planted at the path is replaced, never
// written through; a file readable by others is refused and left alone;
// once a keychain answers, the host's line is dropped (it would be read
// first).
func TestSetFallsBackToTheCredentialsFile(t *testing.T) {
	t.Setenv("CREDENTIALS_DIRECTORY", "")
	dir := filepath.Join(t.TempDir(), "dvv")
	path := filepath.Join(dir, "credentials")
	kc := WithFiles(unanswered{memKeychain{}}, path, names).(*layered)
	if where, err := kc.SetWhere("h-1", "lab", "first"); err != nil || where != InFile {
		t.Fatalf("SetWhere without a keychain: %q %v", where, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("credentials file: %v %v", fi, err)
	}
	writeFile(t, path, "# mine\nbuild:"+filePassword+"\nlab:first\n", 0o600)
	if err := kc.Set("h-1", "lab", "second"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "# mine\nbuild:"+filePassword+"\nlab:second\n" {
		t.Fatalf("after a second Set the file holds %q", b)
	}
	if s, err := kc.Get("h-1"); err != nil || s != "second" {
		t.Fatalf("Get after Set: %q %v", s, err)
	}

	victim := filepath.Join(t.TempDir(), "bashrc")
	writeFile(t, victim, "echo hi\n", 0o600)
	os.Remove(path)
	if err := os.Symlink(victim, path); err != nil {
		t.Fatal(err)
	}
	var ue *UnavailableError
	if err := kc.Set("h-1", "lab", "third"); !errors.As(err, &ue) {
		t.Fatalf("Set over a symlink: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "echo hi\n" {
		t.Fatalf("the symlink's target was written: %q", b)
	}
	os.Remove(path)
	writeFile(t, path, "lab:old\n", 0o644)
	if err := kc.Set("h-1", "lab", "fourth"); !errors.As(err, &ue) || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("Set into a group-readable file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "lab:old\n" {
		t.Fatalf("a refused file was changed: %q", b)
	}

	os.Chmod(path, 0o600)
	mem := memKeychain{}
	withKeychain := WithFiles(mem, path, names).(*layered)
	if where, err := withKeychain.SetWhere("h-1", "lab", "fifth"); err != nil || where != "keychain" || mem["h-1"] != "fifth" {
		t.Fatalf("SetWhere with a keychain: %q %v %v", where, err, mem)
	}
	if s, _ := withKeychain.Get("h-1"); s != "fifth" {
		t.Fatalf("the file's old line still wins over the keychain: %q", s)
	}

	// Forgetting a host whose secret is in the file: its line goes, even
	// with no keychain answering and the host (its name) already gone.
	writeFile(t, path, "lab:x\nother:y\n", 0o600)
	if err := kc.DeleteNamed("h-1", []string{"lab", "h-1"}); err != nil {
		t.Fatalf("DeleteNamed with the secret in the file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "other:y\n" {
		t.Fatalf("after DeleteNamed the file holds %q", b)
	}
}
