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
		if w := p.wait(now, minUpdateInterval); w != 0 {
			t.Fatalf("update %d of the burst waits %v", i, w)
		}
		p.spend(now, minUpdateInterval)
	}
	if w := p.wait(now, minUpdateInterval); w != minUpdateInterval {
		t.Fatalf("after the burst: wait %v, want %v", w, minUpdateInterval)
	}
	now = now.Add(minUpdateInterval)
	if w := p.wait(now, minUpdateInterval); w != 0 {
		t.Fatalf("one interval later: wait %v, want 0", w)
	}
	p.spend(now, minUpdateInterval)
	now = now.Add(time.Second)
	for i := 0; i < updateBurst; i++ {
		if w := p.wait(now, minUpdateInterval); w != 0 {
			t.Fatalf("after a second idle, update %d waits %v", i, w)
		}
		p.spend(now, minUpdateInterval)
	}
}

// TestAgentActsSlowViewers: during an agent's act and for agentActiveFor
// after it, viewers are paced at busyRate.
func TestAgentActsSlowViewers(t *testing.T) {
	now := time.Now()
	if got := updateInterval(now); got != minUpdateInterval && now.Sub(time.Unix(0, lastAct.Load())) >= agentActiveFor {
		t.Fatalf("idle: interval %v, want %v", got, minUpdateInterval)
	}
	done := Priority()
	if got := updateInterval(time.Now()); got != time.Second/busyRate {
		t.Fatalf("during an act: interval %v, want %v", got, time.Second/busyRate)
	}
	done()
	if got := updateInterval(time.Now()); got != time.Second/busyRate {
		t.Fatalf("just after an act: interval %v, want %v", got, time.Second/busyRate)
	}
	if got := updateInterval(time.Now().Add(agentActiveFor)); got != minUpdateInterval {
		t.Fatalf("%v after an act: interval %v, want %v", agentActiveFor, got, minUpdateInterval)
	}
}
