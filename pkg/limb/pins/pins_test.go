package pins

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTrustLookupReplace(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	if _, ok, err := Lookup("h:5900"); ok || err != nil {
		t.Fatalf("empty store: ok=%v err=%v", ok, err)
	}
	if err := Trust("h:5900", "aa:bb"); err != nil {
		t.Fatal(err)
	}
	if err := Trust("other:5901", "CC:DD"); err != nil {
		t.Fatal(err)
	}
	if err := Trust("h:5900", "AA:BB"); err != nil {
		t.Fatalf("trusting the pinned fingerprint again: %v", err)
	}
	var changed *ChangedError
	if err := Trust("h:5900", "EE:FF"); !errors.As(err, &changed) || changed.Pinned != "AA:BB" {
		t.Fatalf("Trust over a different pin: %v, want *ChangedError", err)
	}
	if err := Replace("h:5900", "EE:FF"); err != nil {
		t.Fatal(err)
	}
	fp, ok, err := Lookup("h:5900")
	if err != nil || !ok || fp != "EE:FF" {
		t.Fatalf("Lookup = %q %v %v", fp, ok, err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "dvv", File))
	if strings.Count(string(b), "h:5900") != 1 || !strings.Contains(string(b), "other:5901 CC:DD") {
		t.Fatalf("file:\n%s", b)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "dvv", File)); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	if err := Trust("bad host", "x"); err == nil {
		t.Error("a host with a space was accepted")
	}
}
