package daemon

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dvvhq/dvv/pkg/wire"
)

// What one client can make dvvd hold is bounded, per connection and in
// total, so a greedy or broken client cannot take the memory or the
// connection slots others need (docs/protocol.md "Limits"). Past a limit
// the answer is BUSY; dvvd stays up and every other client is served.
const (
	maxInflightPerConn = 64       // requests with an id running at once on one connection
	maxInflightTotal   = 1024     // … on all connections
	maxSubsTotal       = 256      // event streams (one per connection)
	defaultLineBudget  = 96 << 20 // bytes of unfinished request lines held across all connections
	defaultLineIdle    = 30 * time.Second
	freeAfterBytes     = 8 << 20 // a released line this large hands memory back to the OS
	// smallLine bytes of every line are outside the budget, so ordinary
	// requests (attach, ping, any act) are served however much others
	// hold: 1024 connections hold at most 64 MiB that way.
	smallLine = 64 << 10
)

var (
	errLineTooLong = errors.New("line too long")
	errLineBusy    = errors.New("line budget exhausted")
	errLineIdle    = errors.New("line unfinished for too long")
)

// lineBudget is the bytes of unfinished request lines all connections may
// hold together.
type lineBudget struct {
	max  int64
	used atomic.Int64

	freeMu    sync.Mutex
	freeSoon  bool // a hand-back is scheduled
	lastFreed time.Time
}

func (b *lineBudget) take(n int) bool {
	if b.used.Add(int64(n)) > b.max {
		b.used.Add(-int64(n))
		return false
	}
	return true
}

// give returns n bytes. After a large line the heap has grown by that much:
// hand it back to the OS (at most every few seconds), so RSS falls once a
// client that sent it is done.
func (b *lineBudget) give(n int) {
	if n == 0 {
		return
	}
	b.used.Add(-int64(n))
	if n >= freeAfterBytes {
		b.scheduleFree()
	}
}

// scheduleFree hands memory back to the OS shortly (at most every few
// seconds). Several large lines often end, or grow, together: one
// hand-back, shortly after the last of them, does for all.
func (b *lineBudget) scheduleFree() {
	b.freeMu.Lock()
	defer b.freeMu.Unlock()
	if b.freeSoon {
		return
	}
	b.freeSoon = true
	wait := max(0, 2*time.Second-time.Since(b.lastFreed))
	time.AfterFunc(wait+100*time.Millisecond, func() {
		b.freeMu.Lock()
		b.freeSoon, b.lastFreed = false, time.Now()
		b.freeMu.Unlock()
		debug.FreeOSMemory()
	})
}

// lineReader reads one connection's request lines within the limits: at
// most max bytes a line (longer ones are consumed and reported), bytes held
// only while the global budget allows, and a line left unfinished for idle
// ends the connection. Between lines a connection may sit idle forever.
type lineReader struct {
	r      *bufio.Reader
	max    int
	budget *lineBudget
	held   int
	prefix []byte // the start of a line refused whole, to find its id

	// midSince is when the unfinished line began (unix ns), 0 between
	// lines; served counts complete lines. Eviction reads both.
	midSince atomic.Int64
	served   atomic.Int64
}

func newLineReader(nc net.Conn, max int, idle time.Duration, budget *lineBudget) *lineReader {
	lr := &lineReader{max: max, budget: budget}
	lr.r = bufio.NewReaderSize(&idleReader{nc: nc, idle: idle, midSince: &lr.midSince}, 64<<10)
	return lr
}

// idleReader sits under the bufio.Reader and sees the raw bytes: while the
// last byte received is not a newline a line is unfinished, and a read that
// waits longer than idle for more of it fails.
type idleReader struct {
	nc       net.Conn
	idle     time.Duration
	midSince *atomic.Int64
}

func (ir *idleReader) Read(p []byte) (int, error) {
	if ir.midSince.Load() != 0 {
		ir.nc.SetReadDeadline(time.Now().Add(ir.idle))
	} else {
		ir.nc.SetReadDeadline(time.Time{})
	}
	n, err := ir.nc.Read(p)
	if n > 0 {
		if p[n-1] == '\n' {
			ir.midSince.Store(0)
		} else if ir.midSince.Load() == 0 {
			ir.midSince.Store(time.Now().UnixNano())
		}
	}
	return n, err
}

// next returns the next line. The caller calls release once it is done
// with the bytes.
func (lr *lineReader) next() ([]byte, error) {
	var buf []byte
	var fail error // errLineTooLong or errLineBusy: consume to the end of the line
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if fail == nil {
			switch {
			case len(buf)+len(chunk) > lr.max+1:
				fail = errLineTooLong
			case !lr.grow(&buf, len(chunk)):
				fail = errLineBusy
			default:
				buf = append(buf, chunk...)
			}
			if fail != nil {
				lr.prefix = append(lr.prefix[:0], buf[:min(len(buf), 256)]...)
				if len(buf) == 0 {
					lr.prefix = append(lr.prefix, chunk[:min(len(chunk), 256)]...)
				}
				buf = nil
				lr.release()
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			lr.release()
			return nil, errLineIdle
		}
		if err != nil {
			if err == io.EOF && len(buf) > 0 && fail == nil {
				lr.served.Add(1)
				return buf, nil
			}
			lr.release()
			return nil, err
		}
		lr.served.Add(1)
		if fail != nil {
			return nil, fail
		}
		return buf, nil
	}
}

// grow makes room for n more bytes in *buf, counting the whole new
// capacity against the budget (what the heap really holds).
func (lr *lineReader) grow(buf *[]byte, n int) bool {
	need := len(*buf) + n
	if need <= cap(*buf) {
		return true
	}
	newCap := max(2*cap(*buf), need, 4096)
	counted := max(newCap, smallLine) - max(cap(*buf), smallLine)
	if !lr.budget.take(counted) {
		return false
	}
	lr.held += counted
	nb := make([]byte, len(*buf), newCap)
	copy(nb, *buf)
	if cap(*buf) >= freeAfterBytes {
		lr.budget.scheduleFree() // the outgrown buffer is garbage the size of a large line
	}
	*buf = nb
	return true
}

func (lr *lineReader) release() {
	lr.budget.give(lr.held)
	lr.held = 0
}

// busy is the answer for a request refused by a limit.
func busy(msg string) *wire.Reply {
	return errorResponse(nil, &wire.Error{Code: wire.Busy, Message: msg,
		Next: "wait for earlier requests to finish (or close other connections), then retry"})
}

// refusedID is the id of the line just refused whole (too long, or over
// the budget), when its start names one: dvv's clients put "id" right
// after "op", so the answer reaches the request that is waiting for it.
func (lr *lineReader) refusedID() json.RawMessage {
	i := bytes.Index(lr.prefix, []byte(`"id":`))
	if i < 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(lr.prefix[i+5:]))
	var id json.RawMessage
	if dec.Decode(&id) != nil || !scalarID(id) || string(id) == "null" {
		return nil
	}
	return id
}
