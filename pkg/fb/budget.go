package fb

import (
	"sync/atomic"
	"time"
)

// DefaultDecodeBudget is how many pixels a protocol client may decode into
// one buffer per second: a full 1080p frame sixty times a second.
// DefaultDecodeTime is how much decoding time a second may hold where the
// client measures it (run-length codecs cost far more per pixel than a
// fill). Servers that send more (a flood of cheap updates, each repainting
// the whole screen from a few bytes) are read more slowly, so one limb
// cannot take a core from the others and from the socket.
const (
	DefaultDecodeBudget = 1920 * 1080 * 60
	DefaultDecodeTime   = 250 * time.Millisecond
)

// decodeBudget meters decoding work in one-second windows. Spend is called
// from the one read loop that writes the buffer; the rest is atomic.
type decodeBudget struct {
	perSecond   atomic.Int64
	windowStart time.Time
	spent       int64
	spentTime   time.Duration
	pausedNs    atomic.Int64 // total time the read loop was paused
	lastPause   atomic.Int64 // unix nanoseconds of the latest pause
}

// SetDecodeBudget sets the pixels per second the writer may decode
// (n <= 0: DefaultDecodeBudget).
func (b *Buffer) SetDecodeBudget(n int64) {
	if n <= 0 {
		n = DefaultDecodeBudget
	}
	b.budget.perSecond.Store(n)
}

// SpendDecode records px pixels and took of decoding work (0 where the
// caller cannot tell decoding from waiting for bytes). Past either budget
// of the current second it waits for the next one (or until stop closes),
// which slows the read loop and, through TCP, the server. Only the
// buffer's one writer calls it.
func (b *Buffer) SpendDecode(px int, took time.Duration, stop <-chan struct{}) {
	d := &b.budget
	now := time.Now()
	if now.Sub(d.windowStart) >= time.Second {
		d.windowStart, d.spent, d.spentTime = now, 0, 0
	}
	d.spent += int64(px)
	d.spentTime += took
	limit := d.perSecond.Load()
	if limit <= 0 {
		limit = DefaultDecodeBudget
	}
	if d.spent <= limit && d.spentTime <= DefaultDecodeTime {
		return
	}
	wait := time.Second - now.Sub(d.windowStart)
	t := time.NewTimer(wait)
	select {
	case <-t.C:
	case <-stop:
		t.Stop()
	}
	d.pausedNs.Add(int64(time.Since(now)))
	d.lastPause.Store(time.Now().UnixNano())
	d.windowStart, d.spent, d.spentTime = time.Now(), 0, 0
}

// DecodeThrottle reports whether decoding was paused for the budget in the
// last few seconds, the total time paused, and the budget.
func (b *Buffer) DecodeThrottle() (recent bool, paused time.Duration, perSecond int64) {
	d := &b.budget
	perSecond = d.perSecond.Load()
	if perSecond <= 0 {
		perSecond = DefaultDecodeBudget
	}
	last := d.lastPause.Load()
	recent = last != 0 && time.Since(time.Unix(0, last)) < 3*time.Second
	return recent, time.Duration(d.pausedNs.Load()), perSecond
}
