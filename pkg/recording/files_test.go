package recording

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestRecordingNamesCarryTheirStart(t *testing.T) {
	start := time.Date(2026, 12, 1, 14, 6, 24, 533_900_000, time.FixedZone("X", 3600))
	base := Base("/r", "ssh-659e31bb", start)
	if base != "/r/ssh-659e31bb-20261201T130624.533" {
		t.Fatalf("base %q", base)
	}
	got, ok := Started(base + ".cast")
	if !ok || got.UnixMilli() != start.UnixMilli() {
		t.Fatalf("started %v %v, want %v", got, ok, start)
	}
	if ActsPath(base+".fbs") != base+ActsExt {
		t.Fatalf("acts path %q", ActsPath(base+".fbs"))
	}
	for _, bad := range []string{"/r/notes.cast", "/r/vnc-1-yesterday.fbs"} {
		if _, ok := Started(bad); ok {
			t.Errorf("%s has a start", bad)
		}
	}
}

func TestCountActsCountsCompleteLines(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a"+ActsExt)
	if n, err := CountActs(p); err == nil || n != 0 {
		t.Fatalf("missing log: %d %v", n, err)
	}
	os.WriteFile(p, []byte("{\"op\":\"click\"}\n{\"op\":\"key\"}\n{\"op\":\"ty"), 0o600)
	if n, err := CountActs(p); err != nil || n != 2 {
		t.Fatalf("got %d %v, want the 2 complete lines", n, err)
	}
}
