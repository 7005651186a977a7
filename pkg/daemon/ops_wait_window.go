package daemon

import (
	"fmt"
	"strings"
	"time"

	"github.com/dvvhq/dvv/pkg/wire"
	"github.com/dvvhq/dvv/pkg/xwin"
)

// windowPoll is how often a window wait reads the window manager's list:
// EWMH changes arrive as property events dvvd does not subscribe to here,
// and one read over the sidecar costs about a millisecond on a LAN.
const windowPoll = 50 * time.Millisecond

// windowWait is wait's window family: until window (a window whose id is
// a.Window, or whose title holds it, is listed), window-gone (none is) and
// window-active (it is the active window). stop closes its X connection.
func windowWait(c *opCall, a wire.WaitArgs) (cond func() (bool, string, error), changed func() <-chan struct{}, stop func(), err error) {
	x, _, err := c.l.xconn(c.ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	want := a.Window
	id, idErr := parseWindowID(want)
	byID := strings.HasPrefix(strings.ToLower(want), "0x") && idErr == nil
	matches := func(w xwin.Window) bool {
		if byID {
			return w.ID == id
		}
		return strings.Contains(w.Title, want)
	}
	cond = func() (bool, string, error) {
		ws, err := x.Windows()
		if err != nil {
			return false, "", wire.Errorf(wire.NoStructure, "reading the window manager's list over the sidecar: %v", err)
		}
		for _, w := range ws {
			if !matches(w) {
				continue
			}
			switch a.Until {
			case "window":
				return true, fmt.Sprintf("window %s %q is there", windowID(w.ID), w.Title), nil
			case "window-active":
				if w.Focused {
					return true, fmt.Sprintf("window %s %q is active", windowID(w.ID), w.Title), nil
				}
			case "window-gone":
				return false, "", nil
			}
		}
		if a.Until == "window-gone" {
			return true, fmt.Sprintf("no window matches %q", want), nil
		}
		return false, "", nil
	}
	changed = func() <-chan struct{} {
		ch := make(chan struct{})
		time.AfterFunc(windowPoll, func() { close(ch) })
		return ch
	}
	return cond, changed, x.Close, nil
}
