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

var _ = register(wire.OpWait, typed(opWait), listedOnDesktops, listedOnTerminals)

// opWait waits until its `until` family's condition holds, or the
// deadline passes (an answer, not an error: settled false).
func opWait(c *opCall, a wire.WaitArgs) (*wire.WaitAnswer, error) {
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
	family, ok := waitFamilies[a.Until]
	if !ok { // the spec's variants and this table are one list
		return nil, wire.Errorf(wire.Internal, "wait has no handler for until %q", a.Until)
	}
	w, err := family(c, a, quiet)
	if err != nil {
		return nil, err
	}
	if w.release != nil {
		defer w.release()
	}
	return w.run(c, a, start, deadline)
}

// waiter is one wait's condition: what settles it, and what wakes it to
// look again.
type waiter struct {
	cond    func() (settled bool, detail string, err error)
	changed func() <-chan struct{} // closes at the next change cond may see
	// quiet, when set, also wakes the wait as a quiet period may have
	// ended (screen-stable, idle).
	quiet time.Duration
	// pace, when set, runs after a change before cond looks again (a busy
	// terminal's text); checked is when cond last looked.
	pace    func(checked time.Time) error
	release func()                 // when set, run as the wait ends (a window or element watch)
	fill    func(*wire.WaitResult) // when set, adds the family's findings to every answer (elements)
	matches []wire.TextMatch       // where desktop text was read
}

// waitFamilies builds each `until` family's waiter: one function per
// family, each with the condition its family means.
var waitFamilies = map[string]func(c *opCall, a wire.WaitArgs, quiet time.Duration) (*waiter, error){
	"connected":      waitConnected,
	"screen-stable":  waitScreen,
	"idle":           waitScreen,
	"screen-changed": waitScreen,
	"text":           waitText,
	"text-gone":      waitText,
	"window":         waitWindows,
	"window-gone":    waitWindows,
	"window-active":  waitWindows,
	"element":        waitElements,
	"element-gone":   waitElements,
	"text-equals":    waitElements,
	"text-contains":  waitElements,
	"exit":           waitExit,
}

// run looks at the condition at every change (and state change, and
// quiet tick) until it settles, the deadline passes or the client goes.
func (w *waiter) run(c *opCall, a wire.WaitArgs, start time.Time, deadline *time.Timer) (*wire.WaitAnswer, error) {
	// Quiet-based waits must also wake when the quiet period ends: one
	// timer, re-armed each turn (a timer per turn would live until return).
	var quietTick *time.Timer
	if w.quiet > 0 {
		quietTick = time.NewTimer(w.quiet / 4)
		defer quietTick.Stop()
	}
	for {
		ch, sch := w.changed(), c.l.stateChanged()
		checked := time.Now()
		settled, detail, err := w.cond()
		if err != nil {
			return nil, err
		}
		if settled {
			r := waitAnswer(c, a.Until, true, detail, start)
			r.Wait.Matches = w.matches
			return w.filled(r), nil
		}
		var tick <-chan time.Time
		if quietTick != nil {
			quietTick.Reset(w.quiet / 4) // since Go 1.23 a Reset drops any stale tick
			tick = quietTick.C
		}
		select {
		case <-ch:
			if w.pace != nil {
				if err := w.pace(checked); err != nil {
					return nil, err
				}
			}
		case <-sch:
		case <-tick:
		case <-deadline.C:
			return w.filled(waitAnswer(c, a.Until, false, deadlineDetail(a), start)), nil
		case <-c.ctx.Done():
			return nil, wire.Errorf(wire.Timeout, "the client went away")
		}
	}
}

// filled adds the family's findings to an answer.
func (w *waiter) filled(r *wire.WaitAnswer) *wire.WaitAnswer {
	if w.fill != nil && r.Wait != nil {
		w.fill(r.Wait)
	}
	return r
}

// deadlineDetail says why a wait ended unsettled, and when the caller
// asked for longer than one call waits, says so rather than staying
// silent.
func deadlineDetail(a wire.WaitArgs) string {
	if a.TimeoutMs != nil && *a.TimeoutMs > waitMax {
		return fmt.Sprintf("the deadline passed before it settled: timeoutMs %d was clamped to %d (wait never blocks longer in one call); call wait again to wait longer", *a.TimeoutMs, waitMax)
	}
	return "the deadline passed before it settled"
}

// waitConnected settles when the limb is connected, and fails with the
// limb's own failure (and its hint) when it failed or was closed.
func waitConnected(c *opCall, _ wire.WaitArgs, _ time.Duration) (*waiter, error) {
	l := c.l
	cond := func() (bool, string, error) {
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
	return &waiter{cond: cond, changed: l.stateChanged}, nil
}

// waitScreen serves screen-stable and idle (no change for quiet) and
// screen-changed (any change since the wait began), on the framebuffer of
// a desktop or the output of a terminal.
func waitScreen(c *opCall, a wire.WaitArgs, quiet time.Duration) (*waiter, error) {
	l := c.l
	src, err := l.part.changeSource(a.Until)
	if err != nil {
		return nil, err
	}
	startSeq := src.seq()
	w := &waiter{changed: src.changed}
	if a.Until == "screen-changed" {
		w.cond = func() (bool, string, error) {
			if err := l.mustBeConnected(); err != nil {
				return false, "", err
			}
			return src.seq() != startSeq, "the screen changed", nil
		}
		return w, nil
	}
	w.quiet = quiet
	w.cond = func() (bool, string, error) {
		if err := l.mustBeConnected(); err != nil {
			return false, "", err
		}
		if q := time.Since(src.last()); q >= quiet {
			return true, fmt.Sprintf("no change for %d ms", q.Milliseconds()), nil
		}
		return false, "", nil
	}
	return w, nil
}

// waitText serves text and text-gone: on a desktop by reading its text
// (desktopTextWait), on a terminal in its grid, looked at again when a
// flood of output pauses.
func waitText(c *opCall, a wire.WaitArgs, _ time.Duration) (*waiter, error) {
	if *a.Text == "" { // present (the spec requires it) but empty
		return nil, wire.Errorf(wire.BadRequest, "until %s needs text", a.Until)
	}
	l, want := c.l, *a.Text
	if l.dsk != nil {
		w := &waiter{}
		var err error
		if w.cond, w.changed, err = desktopTextWait(c, a, want, &w.matches); err != nil {
			return nil, err
		}
		return w, nil
	}
	cond := func() (bool, string, error) {
		term, err := l.liveTerminal()
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
	// Reading the grid costs a screen of emulation: during a flood, look
	// again when the output pauses, or after a growing interval (the
	// deadline is noticed on the next turn, after one more look).
	recheck := textRecheck
	pace := func(checked time.Time) error {
		paused, ok := pauseText(c, l.lastChange, checked.Add(recheck))
		if !ok {
			return wire.Errorf(wire.Timeout, "the client went away")
		}
		if paused {
			recheck = textRecheck
		} else {
			recheck = min(2*recheck, textRecheckMax)
		}
		return nil
	}
	return &waiter{cond: cond, changed: l.termChanged, pace: pace}, nil
}

// waitWindows serves window, window-gone and window-active (desktops only:
// wire.OpSpec.VariantKinds) on the desktop's windows (windowWait); its
// watch ends with the wait.
func waitWindows(c *opCall, a wire.WaitArgs, _ time.Duration) (*waiter, error) {
	w := &waiter{}
	var err error
	if w.cond, w.changed, w.release, err = windowWait(c, a); err != nil {
		return nil, err
	}
	return w, nil
}

// waitElements serves element, element-gone, text-equals and
// text-contains (desktops only) on the desktop's accessibility tree
// (elementWait); every answer carries the elements it found, and the
// tree's connection ends with the wait.
func waitElements(c *opCall, a wire.WaitArgs, _ time.Duration) (*waiter, error) {
	w := &waiter{}
	found, done, err := elementWait(c, a, &w.cond, &w.changed)
	if err != nil {
		return nil, err
	}
	w.release = done
	w.fill = func(r *wire.WaitResult) { r.Elements = *found }
	return w, nil
}

// waitExit settles when the terminal's shell exits (terminals only:
// wire.OpSpec.VariantKinds).
func waitExit(c *opCall, _ wire.WaitArgs, _ time.Duration) (*waiter, error) {
	l := c.l
	cond := func() (bool, string, error) {
		if code, exited := l.lastExit(); exited {
			return true, fmt.Sprintf("the shell exited with status %d", code), nil
		}
		return false, "", nil
	}
	return &waiter{cond: cond, changed: l.termChanged}, nil
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
func pauseText(c *opCall, last func() time.Time, t time.Time) (paused, ok bool) {
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
	if term, err := l.liveTerminal(); err == nil {
		return term.LastOutput()
	}
	return time.Time{}
}

func waitAnswer(c *opCall, until string, settled bool, detail string, start time.Time) *wire.WaitAnswer {
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
