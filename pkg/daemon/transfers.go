package daemon

import (
	"context"
	"encoding/json"
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
	total                    atomic.Int64  // the file's size once known; 0 = unknown
	sized                    chan struct{} // signalled when total is learnt
	cancel                   context.CancelFunc
}

type transferKey struct{}

// startTransfer registers a get or put of limb l and returns it with the
// context its reads and writes count against (and stop with).
func startTransfer(c *opCall, action, path string) (*transfer, context.Context, func()) {
	ctx, cancel := context.WithCancel(c.ctx)
	t := &transfer{limbID: c.l.id, action: action, path: path, d: c.d, start: time.Now(), cancel: cancel,
		sized: make(chan struct{}, 1)}
	transfers.mu.Lock()
	transfers.next++
	t.id = fmt.Sprintf("t-%d", transfers.next)
	transfers.m[t.id] = t
	transfers.mu.Unlock()
	return t, context.WithValue(ctx, transferKey{}, t), func() {
		transfers.mu.Lock()
		delete(transfers.m, t.id)
		transfers.mu.Unlock()
		cancel()
	}
}

// countBytes adds n to the transfer ctx belongs to, if any.
func countBytes(ctx context.Context, n int) {
	if t, ok := ctx.Value(transferKey{}).(*transfer); ok && n > 0 {
		t.bytes.Add(int64(n))
	}
}

// expectSize records the size of the file the transfer ctx belongs to.
func expectSize(ctx context.Context, n int64) {
	if t, ok := ctx.Value(transferKey{}).(*transfer); ok && n > 0 {
		t.total.Store(n)
		select {
		case t.sized <- struct{}{}:
		default:
		}
	}
}

// info is the transfer's state now.
func (t *transfer) info() wire.TransferInfo {
	el := time.Since(t.start)
	n := t.bytes.Load()
	rate := int64(0)
	if el > 0 {
		rate = int64(float64(n) / el.Seconds())
	}
	return wire.TransferInfo{TransferID: t.id, Action: t.action, Path: t.path, Bytes: n, Total: t.total.Load(),
		ElapsedMs: el.Milliseconds(), BytesPerSec: rate}
}

// progressEvery is how often a transfer that asked for progress reports.
const progressEvery = 200 * time.Millisecond

// reportProgress sends t's state on c as "progress" lines tagged with the
// request's id: at once, as soon as the file's size is known, every
// progressEvery while bytes move, and the last state when stop is called.
// stop returns once that line is written, so none follows the answer.
func (t *transfer) reportProgress(c *conn, id json.RawMessage) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		var last *wire.TransferInfo
		report := func() {
			info := t.info()
			if last == nil || info.Bytes != last.Bytes || info.Total != last.Total {
				c.sendLine(&wire.ProgressLine{Result: wire.ResultProgress, ID: id, Progress: &info})
				last = &info
			}
		}
		for {
			report()
			select {
			case <-done:
				report()
				return
			case <-t.sized:
			case <-tick.C:
			}
		}
	}()
	return func() { close(done); wg.Wait() }
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
		out = append(out, t.info())
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
