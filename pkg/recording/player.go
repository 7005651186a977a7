package recording

import (
	"bufio"
	"context"
	"fmt"
	"image"
	"io"
	"os"
	"sort"
	"sync"
)

// Player shows an FBS desktop recording at any instant: the recording's
// bytes are played into dvv's RFB client up to that instant. Going forward
// feeds more of the stream; going back starts the client again from the
// start (a stream of updates cannot be played backwards).
type Player struct {
	mu     sync.Mutex
	ctx    context.Context
	stream []byte
	ends   []int    // where each block ends in stream
	times  []uint32 // each block's time, ms since the start
	p      *player
	fed    int  // bytes of stream the client was given
	ended  bool // the whole stream was fed and the frame settled
}

// maxBlocks bounds the blocks of an FBS file a player reads: dvv's
// recorder writes at most ten a second, so 2^22 is over 116 hours of a
// screen that never rests, and the player's index of them stays at 48 MiB.
const maxBlocks = 1 << 22

// OpenPlayer reads an FBS file whole. ctx bounds the player's life.
func OpenPlayer(ctx context.Context, path string) (*Player, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pl, err := NewPlayer(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return pl, nil
}

// NewPlayer reads an FBS recording whole from r.
func NewPlayer(ctx context.Context, r io.Reader) (*Player, error) {
	pl := &Player{ctx: ctx}
	if err := ReadFBS(bufio.NewReader(r), func(ms uint32, b []byte) error {
		if len(pl.times) == maxBlocks {
			return fmt.Errorf("the recording has more than %d blocks, more than dvv writes in a recording (at most ten a second)", maxBlocks)
		}
		pl.stream = append(pl.stream, b...)
		pl.ends = append(pl.ends, len(pl.stream))
		// A block stamped earlier than one before it plays with that one:
		// times never decrease, so Frame can search them.
		if n := len(pl.times); n > 0 && ms < pl.times[n-1] {
			ms = pl.times[n-1]
		}
		pl.times = append(pl.times, ms)
		return nil
	}); err != nil {
		return nil, err
	}
	if _, err := handshakeLen(pl.stream); err != nil {
		return nil, err
	}
	return pl, nil
}

// DurationMs is the time of the recording's last block.
func (pl *Player) DurationMs() uint32 {
	if len(pl.times) == 0 {
		return 0
	}
	return pl.times[len(pl.times)-1]
}

// Frame is the screen at ms since the start: every block stamped at or
// before ms decoded, none after.
func (pl *Player) Frame(ms uint32) (*image.RGBA, error) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	target := 0
	// The blocks stamped at or before ms: a search, since an export asks
	// for every frame and a long recording has many blocks.
	if n := sort.Search(len(pl.times), func(i int) bool { return pl.times[i] > ms }); n > 0 {
		target = pl.ends[n-1]
	}
	if pl.p != nil && target < pl.fed-1 { // backwards: from the start again
		pl.p.close()
		pl.p = nil
	}
	if pl.p == nil {
		p, err := startPlayer(pl.ctx, pl.stream)
		if err != nil {
			return nil, err
		}
		pl.p, pl.fed, pl.ended = p, p.hs, false
	}
	if err := pl.feed(max(target, pl.p.hs)); err != nil {
		return nil, err
	}
	w, h := pl.p.buf.Size()
	if w == 0 || h == 0 {
		return nil, fmt.Errorf("the recording holds no frame")
	}
	img, _ := pl.p.buf.Snapshot(image.Rect(0, 0, w, h))
	return img, nil
}

// feed gives the client the stream up to target and waits until it has
// decoded it. The wait is a sync point, not a timer: the client reads the
// pipe only once it has decoded what it read before, so when the first
// byte after target, written on its own, has been taken, everything up to
// target is on the framebuffer. At the end of the stream there is no next
// byte, and the frame is watched until it stops changing.
func (pl *Player) feed(target int) error {
	err := pl.feedTo(target)
	if pl.p.storm.Load() {
		return errResizeStorm
	}
	return err
}

func (pl *Player) feedTo(target int) error {
	if target > pl.fed {
		if _, err := pl.p.srv.Write(pl.stream[pl.fed:target]); err != nil {
			return err
		}
		pl.fed = target
	}
	if pl.fed == target && target < len(pl.stream) {
		if _, err := pl.p.srv.Write(pl.stream[target : target+1]); err != nil {
			return err
		}
		pl.fed++
	} else if target == len(pl.stream) && !pl.ended {
		settle(pl.p.buf)
		pl.ended = true
	}
	return nil
}

// Close ends the player's client.
func (pl *Player) Close() {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.p != nil {
		pl.p.close()
		pl.p = nil
	}
}
