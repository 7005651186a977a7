package history

import (
	"fmt"
	"testing"
	"time"
)

// TestRingKeepsTheNewestOldestFirst: past Size entries the oldest go, the
// rest come back in the order they happened, numbered from the first ever.
func TestRingKeepsTheNewestOldestFirst(t *testing.T) {
	var h Ring
	start := time.Now()
	for i := range Size + 5 {
		h.Add(fmt.Sprint("op", i), "agent", "ok", "", start)
	}
	got := h.List()
	if len(got) != Size {
		t.Fatalf("%d entries, want %d", len(got), Size)
	}
	if got[0].Op != "op5" || got[0].Seq != 6 || got[Size-1].Op != fmt.Sprint("op", Size+4) {
		t.Fatalf("first %+v, last %+v", got[0], got[Size-1])
	}
}

// TestAddDoesNotAllocate: a limb driven for days keeps one ring's memory.
func TestAddDoesNotAllocate(t *testing.T) {
	var h Ring
	start := time.Now()
	if n := testing.AllocsPerRun(1000, func() { h.Add("click", "agent", "ok", "click", start) }); n != 0 {
		t.Fatalf("Add allocates %v times", n)
	}
}
