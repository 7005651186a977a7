// Package history is a limb's ring of recent operations, which `history`
// answers: op, attachment, outcome and timings, never typed text, pixels
// or secrets.
package history

import (
	"sync"
	"time"

	"github.com/dvvhq/dvv/pkg/wire"
)

// Size is how many recent operations each limb remembers.
const Size = 128

// Ring is a limb's ring of recent operations: op, attachment, outcome
// and timings. It never holds typed text, pixels or secrets, so an agent
// whose call timed out can safely learn what happened.
//
// A fixed array, not a slice that grows and is trimmed: a limb driven for
// days keeps the same 128 entries' memory, and add never allocates.
type Ring struct {
	mu   sync.Mutex // a leaf lock: nothing else is taken while it is held, so it never joins the lock order
	ring [Size]wire.HistoryEntry
	n    uint64 // entries ever added; the newest is at (n-1) % Size
}

// Add records one operation that began at start and ends now.
func (h *Ring) Add(op, attachment, outcome, detail string, start time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.n++
	h.ring[(h.n-1)%Size] = wire.HistoryEntry{Seq: h.n, Op: op, Attachment: attachment, Outcome: outcome,
		Detail: detail, StartedMs: start.UnixMilli(), ElapsedMs: time.Since(start).Milliseconds()}
}

// List returns the remembered entries, oldest first.
func (h *Ring) List() []wire.HistoryEntry {
	h.mu.Lock()
	defer h.mu.Unlock()
	count := min(h.n, Size)
	out := make([]wire.HistoryEntry, 0, count)
	for i := h.n - count; i < h.n; i++ {
		out = append(out, h.ring[i%Size])
	}
	return out
}
