package rfbserver

import (
	"testing"
	"time"
)

// TestPacerBurstThenRate: a few updates go at once, then one per
// minUpdateInterval; an idle spell refills the burst (synthetic clock).
func TestPacerBurstThenRate(t *testing.T) {
	var p pacer
	now := time.Unix(1000, 0)
	for i := 0; i < updateBurst; i++ {
		if w := p.wait(now); w != 0 {
			t.Fatalf("update %d of the burst waits %v", i, w)
		}
		p.spend(now)
	}
	if w := p.wait(now); w != minUpdateInterval {
		t.Fatalf("after the burst: wait %v, want %v", w, minUpdateInterval)
	}
	now = now.Add(minUpdateInterval)
	if w := p.wait(now); w != 0 {
		t.Fatalf("one interval later: wait %v, want 0", w)
	}
	p.spend(now)
	now = now.Add(time.Second)
	for i := 0; i < updateBurst; i++ {
		if w := p.wait(now); w != 0 {
			t.Fatalf("after a second idle, update %d waits %v", i, w)
		}
		p.spend(now)
	}
}
