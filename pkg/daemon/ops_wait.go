package daemon

import (
	"fmt"
	"strings"
	"time"

	"github.com/dvvhq/dvv/pkg/wire"
)

// Wait limits from the reference: timeoutMs defaults to 8000 and is clamped
// to 25000 so a wait never outlives the agent's own call; quietMs 750.
const (
	waitDefault = 8000
	waitMax     = 25000
	quietDef    = 750
)

var _ = register(wire.OpWait, typed(opWait))

func opWait(c *call, a wire.WaitArgs) (*wire.WaitAnswer, error) {
	l := c.l
	timeout := clampMs(waitDefault, waitMax)
	if a.TimeoutMs != nil {
		timeout = clampMs(*a.TimeoutMs, waitMax)
	}
	quiet := clampMs(quietDef, waitMax)
	if a.QuietMs != nil {
		quiet = clampMs(*a.QuietMs, waitMax)
	}
	start := time.Now()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()

	var cond func() (settled bool, detail string, err error)
	var changed func() <-chan struct{}
	stateChanged := func() <-chan struct{} { l.mu.Lock(); defer l.mu.Unlock(); return l.stateCh }
	var matches []wire.TextMatch // where desktop text was read

	switch a.Until {
	case "connected":
		cond = func() (bool, string, error) {
			l.mu.Lock()
			st, le := l.state, l.lastErr
			l.mu.Unlock()
			switch st {
			case wire.StateConnected:
				return true, "connected", nil
			case wire.StateFailed, wire.StateClosed:
				if le != nil {
					next := le.Next // the failure's own hint (e.g. the exact trust command)
					if next == "" {
						next = le.Code.Info().Next
					}
					return false, "", &wire.Error{Code: le.Code, Message: "limb " + l.id + " failed: " + le.Message, Next: next, Fingerprint: le.Fingerprint}
				}
				return false, "", wire.Errorf(wire.NotConnected, "limb %s is %s", l.id, st)
			}
			return false, "", nil
		}
		changed = stateChanged
	case "screen-stable", "idle", "screen-changed":
		src, err := l.part.changeSource(a.Until)
		if err != nil {
			return nil, err
		}
		startSeq := src.seq()
		cond = func() (bool, string, error) {
			if err := l.mustBeConnected(); err != nil {
				return false, "", err
			}
			if a.Until == "screen-changed" {
				if src.seq() != startSeq {
					return true, "the screen changed", nil
				}
				return false, "", nil
			}
			if q := time.Since(src.last()); q >= quiet {
				return true, fmt.Sprintf("no change for %d ms", q.Milliseconds()), nil
			}
			return false, "", nil
		}
		changed = src.changed
	case "text", "text-gone":
		if *a.Text == "" { // present (the spec requires it) but empty
			return nil, wire.Errorf(wire.BadRequest, "until %s needs text", a.Until)
		}
		want := *a.Text
		if l.dsk != nil {
			var err error
			if cond, changed, err = desktopTextWait(c, a, want, &matches); err != nil {
				return nil, err
			}
			break
		}
		cond = func() (bool, string, error) {
			term, err := l.terminal()
			if err != nil {
				return false, "", err
			}
			rows, _, _ := term.Grid()
			found := strings.Contains(strings.Join(rows, "\n"), want)
			if found == (a.Until == "text") {
				return true, fmt.Sprintf("text %s the screen", map[bool]string{true: "is on", false: "is gone from"}[found]), nil
			}
			return false, "", nil
		}
		changed = l.termChanged
	case "window", "window-gone", "window-active": // desktops only (VariantKinds)
		var stop func()
		var err error
		if cond, changed, stop, err = windowWait(c, a); err != nil {
			return nil, err
		}
		defer stop()
	case "exit": // terminals only (wire.OpSpec.VariantKinds)
		cond = func() (bool, string, error) {
			if code, exited := l.lastExit(); exited {
				return true, fmt.Sprintf("the shell exited with status %d", code), nil
			}
			return false, "", nil
		}
		changed = l.termChanged
	}

	recheck := textRecheck
	// Quiet-based waits must also wake when the quiet period ends: one
	// timer, re-armed each turn (a timer per turn would live until return).
	var quietTick *time.Timer
	if a.Until == "screen-stable" || a.Until == "idle" {
		quietTick = time.NewTimer(quiet / 4)
		defer quietTick.Stop()
	}
	for {
		ch, sch := changed(), stateChanged()
		checked := time.Now()
		settled, detail, err := cond()
		if err != nil {
			return nil, err
		}
		if settled {
			r := waitAnswer(c, a.Until, true, detail, start)
			r.Wait.Matches = matches
			return r, nil
		}
		var tick <-chan time.Time
		if quietTick != nil {
			quietTick.Reset(quiet / 4) // since Go 1.23 a Reset drops any stale tick
			tick = quietTick.C
		}
		select {
		case <-ch:
			if l.tty != nil && (a.Until == "text" || a.Until == "text-gone") {
				// Reading the grid costs a screen of emulation: during a
				// flood, look again when the output pauses, or after a
				// growing interval (the deadline is noticed on the next
				// turn, after one more look).
				paused, ok := pauseText(c, l.lastChange, checked.Add(recheck))
				if !ok {
					return nil, wire.Errorf(wire.Timeout, "the client went away")
				}
				if paused {
					recheck = textRecheck
				} else {
					recheck = min(2*recheck, textRecheckMax)
				}
			}
		case <-sch:
		case <-tick:
		case <-deadline.C:
			detail := "the deadline passed before it settled"
			if a.TimeoutMs != nil && *a.TimeoutMs > waitMax {
				// Said, not silent: the caller asked for longer.
				detail = fmt.Sprintf("the deadline passed before it settled: timeoutMs %d was clamped to %d (wait never blocks longer in one call); call wait again to wait longer", *a.TimeoutMs, waitMax)
			}
			return waitAnswer(c, a.Until, false, detail, start), nil
		case <-c.ctx.Done():
			return nil, wire.Errorf(wire.Timeout, "the client went away")
		}
	}
}

// A text wait on a busy terminal looks again once the output has paused
// for textRecheck, or after an interval that starts at textRecheck and
// doubles up to textRecheckMax while the output streams on.
const (
	textRecheck    = 25 * time.Millisecond
	textRecheckMax = 250 * time.Millisecond
)

// pauseText waits for a pause of textRecheck in the output, or until t;
// paused says which came first, ok is false when the client went away.
// It polls the time of the last change rather than waking for each chunk.
func pauseText(c *call, last func() time.Time, t time.Time) (paused, ok bool) {
	end := time.NewTimer(max(time.Until(t), 0))
	defer end.Stop()
	tick := time.NewTicker(textRecheck / 2)
	defer tick.Stop()
	for {
		select {
		case <-end.C:
			return false, true
		case <-tick.C:
			if time.Since(last()) >= textRecheck {
				return true, true
			}
		case <-c.ctx.Done():
			return false, false
		}
	}
}

// lastChange is when the terminal last printed.
func (l *Limb) lastChange() time.Time {
	if term, err := l.terminal(); err == nil {
		return term.LastOutput()
	}
	return time.Time{}
}

func waitAnswer(c *call, until string, settled bool, detail string, start time.Time) *wire.WaitAnswer {
	r := &wire.WaitAnswer{}
	r.Wait = &wire.WaitResult{Until: until, Settled: settled, ElapsedMs: time.Since(start).Milliseconds(), Detail: detail}
	if until == "exit" && settled {
		if code, ok := c.l.lastExit(); ok {
			r.Wait.ExitCode = &code
		}
	}
	r.Observation = c.l.observe(c.att)
	return r
}

// changeSource is what screen/idle waits watch: the framebuffer for a
// desktop, the output stream for a terminal.
type changeSource struct {
	seq     func() uint64
	last    func() time.Time
	changed func() <-chan struct{}
}

// termChanged closes at the terminal's next output (or never, when there is
// no live session; the state channel wakes the wait then).
func (l *Limb) termChanged() <-chan struct{} {
	if term, err := l.terminal(); err == nil {
		return term.Changed()
	}
	return nil
}

func (l *Limb) mustBeConnected() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.state != wire.StateConnected {
		return l.notConnectedLocked()
	}
	return nil
}
