package daemon

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dvvhq/dvv/pkg/wire"
)

// transfers are the files get/put calls in flight, so `transfer status`
// can show their bytes and rate and `transfer cancel` can stop one. A
// transfer lives exactly as long as its files call.
var transfers = &transferTable{m: map[string]*transfer{}}

type transferTable struct {
	mu   sync.Mutex
	next int
	m    map[string]*transfer
}

type transfer struct {
	id, limbID, action, path string
	d                        *Daemon
	start                    time.Time
	bytes                    atomic.Int64
	cancel                   context.CancelFunc
}

type bytesKey struct{}

// startTransfer registers a get or put of limb l and returns the context
// its reads and writes count against (and stop with).
func startTransfer(c *call, action, path string) (context.Context, func()) {
	ctx, cancel := context.WithCancel(c.ctx)
	t := &transfer{limbID: c.l.id, action: action, path: path, d: c.d, start: time.Now(), cancel: cancel}
	transfers.mu.Lock()
	transfers.next++
	t.id = fmt.Sprintf("t-%d", transfers.next)
	transfers.m[t.id] = t
	transfers.mu.Unlock()
	return context.WithValue(ctx, bytesKey{}, &t.bytes), func() {
		transfers.mu.Lock()
		delete(transfers.m, t.id)
		transfers.mu.Unlock()
		cancel()
	}
}

// countBytes adds n to the transfer ctx belongs to, if any.
func countBytes(ctx context.Context, n int) {
	if b, ok := ctx.Value(bytesKey{}).(*atomic.Int64); ok && n > 0 {
		b.Add(int64(n))
	}
}

// inFlight lists the transfers of one limb of this daemon, oldest first.
func (tt *transferTable) inFlight(d *Daemon, limbID string) []wire.TransferInfo {
	tt.mu.Lock()
	var list []*transfer
	for _, t := range tt.m {
		if t.d == d && t.limbID == limbID {
			list = append(list, t)
		}
	}
	tt.mu.Unlock()
	sort.Slice(list, func(i, j int) bool { return list[i].start.Before(list[j].start) })
	out := []wire.TransferInfo{}
	for _, t := range list {
		el := time.Since(t.start)
		n := t.bytes.Load()
		rate := int64(0)
		if el > 0 {
			rate = int64(float64(n) / el.Seconds())
		}
		out = append(out, wire.TransferInfo{TransferID: t.id, Action: t.action, Path: t.path, Bytes: n,
			ElapsedMs: el.Milliseconds(), BytesPerSec: rate})
	}
	return out
}

// cancel stops transfer id of limb limbID; false when there is none.
func (tt *transferTable) cancel(d *Daemon, limbID, id string) bool {
	tt.mu.Lock()
	t := tt.m[id]
	tt.mu.Unlock()
	if t == nil || t.d != d || t.limbID != limbID {
		return false
	}
	t.cancel()
	return true
}
