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

// Another writer's temp file at the old fixed name (p+".tmp") does not
// stop a pin from being written, nor is it taken over; the file stays 0600.
func TestReplaceUsesATempFileOfItsOwn(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	p, err := Path()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(p+".tmp", 0o700); err != nil { // in the way of a fixed temp name
		t.Fatal(err)
	}
	if err := Replace("h:3389", "AA:BB"); err != nil {
		t.Fatalf("Replace beside another writer's temp file: %v", err)
	}
	if fp, ok, err := Lookup("h:3389"); err != nil || !ok || fp != "AA:BB" {
		t.Fatalf("Lookup = %q %v %v", fp, ok, err)
	}
	st, err := os.Stat(p)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("pins file: %v %v, want mode 0600", st.Mode(), err)
	}
	if st, err := os.Stat(p + ".tmp"); err != nil || !st.IsDir() {
		t.Fatalf("the other writer's temp path was touched: %v", err)
	}
}
