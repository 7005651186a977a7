package daemon

import (
	"context"
	"fmt"
	"time"

	"github.com/dvvhq/dvv/pkg/wire"
	"github.com/dvvhq/dvv/pkg/xwin"
)

var _ = register(wire.OpWindow, typed(opWindow))

// windowSettle is how long a window act waits by default for the window
// manager to state the result.
const windowSettle = time.Second

// opWindow asks the window manager (EWMH client messages, as a taskbar
// sends them) to activate, move, resize or close a window, then reads the
// manager's state back until it shows what was asked or the time is up.
func opWindow(c *opCall, a wire.WindowArgs) (*wire.WindowAnswer, error) {
	l := c.l
	id, err := parseWindowID(a.Window)
	if err != nil {
		return nil, err
	}
	if err := l.checkLease(c.att); err != nil {
		return nil, err
	}
	x, _, err := l.xconn(c.ctx)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	before, err := x.Window(id)
	if err != nil {
		return nil, &wire.Error{Code: wire.NotFound, Message: err.Error(), Next: "list the windows again with `windows`: it may have closed"}
	}
	settle := windowSettle
	if a.TimeoutMs != nil {
		settle = time.Duration(*a.TimeoutMs) * time.Millisecond
	}
	act := &wire.WindowAct{Action: a.Action}
	// Watched from before the act, so the change it makes is seen.
	mirror := watchMirror(l.dsk)
	deadline := time.Now().Add(settle)
	var done func(w xwin.Window, gone bool) bool
	switch a.Action {
	case "activate":
		err = x.Activate(id)
		done = func(w xwin.Window, gone bool) bool { return !gone && w.Focused }
	case "move":
		err = x.MoveResize(id, *a.X, *a.Y, 0, 0)
		done = func(w xwin.Window, gone bool) bool { return !gone && w.Frame.X == *a.X && w.Frame.Y == *a.Y }
	case "resize":
		err = x.MoveResize(id, -1, -1, *a.Width, *a.Height)
		done = func(w xwin.Window, gone bool) bool { return !gone && w.Client.W == *a.Width && w.Client.H == *a.Height }
	case "close":
		err = x.CloseWindow(id)
		done = func(_ xwin.Window, gone bool) bool { return gone }
	}
	if err != nil {
		return nil, wire.Errorf(wire.NoStructure, "the X server refused the request to the window manager: %v", err)
	}
	after, gone, ok := waitWindow(c.ctx, x, id, settle, done)
	if !gone {
		w := wireWindow(after)
		act.Window = &w
	}
	if !ok {
		mirror.tr.Close()
		act.Note = windowNote(a, before, after, gone, settle)
		return &wire.WindowAnswer{Window: act}, nil
	}
	// The manager states it; the picture must show it too.
	act.Note = mirror.confirm(c.ctx, a.Action, before, after, deadline)
	act.Verified = act.Note == ""
	return &wire.WindowAnswer{Window: act}, nil
}

// waitWindow reads the window until done says so, the time is up or the
// client goes away; it answers the last state read.
func waitWindow(ctx context.Context, x *xwin.Conn, id uint32, settle time.Duration, done func(xwin.Window, bool) bool) (xwin.Window, bool, bool) {
	deadline := time.Now().Add(settle)
	for {
		w, err := x.Window(id)
		gone := err != nil
		if done(w, gone) {
			return w, gone, true
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return w, gone, false
		}
		time.Sleep(20 * time.Millisecond) // the manager answers on its own time; EWMH has no reply to wait on
	}
}

func windowNote(a wire.WindowArgs, before, after xwin.Window, gone bool, settle time.Duration) string {
	switch {
	case gone:
		return "the window closed instead"
	case a.Action == "activate":
		return fmt.Sprintf("the window manager did not make it active within %v (a manager may refuse focus stealing)", settle)
	case a.Action == "move":
		return fmt.Sprintf("the frame is at %d,%d after %v, not %d,%d (the manager may keep windows on screen)", after.Frame.X, after.Frame.Y, settle, *a.X, *a.Y)
	case a.Action == "resize":
		return fmt.Sprintf("the client area is %dx%d after %v, not %dx%d (the program may keep a minimum size or size steps)", after.Client.W, after.Client.H, settle, *a.Width, *a.Height)
	default:
		return fmt.Sprintf("the window is still open after %v: the program may ask before closing, or refuse", settle)
	}
}
