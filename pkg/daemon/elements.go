package daemon

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/dvvhq/dvv/pkg/atspi"
	"github.com/dvvhq/dvv/pkg/wire"
)

// a11y answers the limb's connection to the accessibility bus of its
// session (the structure its SSH sidecar found), kept across ops: the
// caller must not close it.
func (c *opCall) a11y() (*atspi.Client, error) {
	cl, err := c.l.a11yBus(c.ctx)
	if err != nil {
		var we *wire.Error
		if errors.As(err, &we) {
			return nil, we
		}
		return nil, &wire.Error{Code: wire.NoStructure, Message: fmt.Sprintf("the accessibility bus of limb %s did not answer: %v", c.l.id, err),
			Next: "check that at-spi-bus-launcher runs in the desktop session (`dvv signals LIMB`), or act by pixels (screen, find, click)"}
	}
	return cl, nil
}

// elementError turns an atspi error into a coded refusal.
func elementError(err error, id string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, atspi.ErrStale), errors.Is(err, atspi.ErrGone):
		return &wire.Error{Code: wire.StaleElement, Message: fmt.Sprintf("element %s: %v", id, err), Next: wire.StaleElement.Info().Next}
	case errors.Is(err, atspi.ErrProtected):
		return &wire.Error{Code: wire.Unsupported, Message: err.Error(), Next: "a password field can be set (set-text, insert) but its text is never read back"}
	case errors.Is(err, atspi.ErrUnsupported):
		return &wire.Error{Code: wire.Unsupported, Message: err.Error(), Next: "see the element's role, states and actions in `inspect`, and pick an act it offers"}
	case errors.Is(err, atspi.ErrRange):
		return &wire.Error{Code: wire.OutOfBounds, Message: err.Error(), Next: "give a value within the element's min..max (inspect shows them)"}
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return &wire.Error{Code: wire.Timeout, Message: fmt.Sprintf("the program behind element %s did not answer in time: %v", id, err), Next: wire.Timeout.Info().Next}
	}
	return &wire.Error{Code: wire.Unsupported, Message: fmt.Sprintf("element %s: %v", id, err), Next: "run `inspect` again; if it repeats, act by pixels (screen, find, click)"}
}

// wireElement is the answer's form of nodes[i], a walk of one window.
func wireElement(nodes []atspi.Node, i int, gen uint64) wire.Element {
	n := nodes[i]
	e := wire.Element{ID: atspi.IDOf(nodes, i, gen).String(), Role: n.Role, Name: n.Name, States: n.States,
		Bounds:  wire.Region{X: n.Bounds.X, Y: n.Bounds.Y, W: n.Bounds.W, H: n.Bounds.H},
		Center:  wire.Point{X: n.Bounds.X + n.Bounds.W/2, Y: n.Bounds.Y + n.Bounds.H/2},
		Actions: n.Actions, Protected: n.Protected, Depth: n.Depth, Window: nodes[0].Name}
	if !n.Protected {
		e.Text = n.Text
	}
	if n.Value != nil {
		e.Value = wireValue(n.Value)
	}
	return e
}

func wireValue(v *atspi.Value) *wire.ElementValue {
	if v == nil {
		return nil
	}
	return &wire.ElementValue{Current: v.Current, Min: v.Min, Max: v.Max, Step: v.Step}
}

// windowSelector reads a window selection: an X window id from windows
// ("0x1a00007": the accessible window of the same program, pid and title),
// a window id from an earlier inspect (its program and path; its layout may
// have changed since), or a substring of its title; "" selects every
// window on the screen.
func windowSelector(c *opCall, sel string) (func(atspi.Window) bool, error) {
	switch {
	case sel == "":
		return func(w atspi.Window) bool { return w.Has("showing") }, nil
	case strings.HasPrefix(sel, "0x"):
		xid, err := strconv.ParseUint(sel[2:], 16, 32)
		if err != nil {
			return nil, &wire.Error{Code: wire.BadRequest, Message: fmt.Sprintf("window %.40q is not an X window id", sel), Next: "take a window id from windows (dvv windows LIMB) or inspect"}
		}
		x, _, err := c.l.xconn(c.ctx)
		if err != nil {
			return nil, err
		}
		defer x.Close()
		xw, err := x.Window(uint32(xid))
		if err != nil {
			return nil, &wire.Error{Code: wire.NotFound, Message: fmt.Sprintf("no window %s on the display: %v", sel, err), Next: "list the windows again (dvv windows LIMB)"}
		}
		return func(w atspi.Window) bool {
			if w.Name != xw.Title {
				return false
			}
			if xw.PID != 0 && w.PID != 0 {
				return int(w.PID) == xw.PID
			}
			return w.Bounds == atspi.Rect(xw.Client)
		}, nil
	}
	if id, err := atspi.ParseID(sel); err == nil {
		return func(w atspi.Window) bool { return id.Bus == w.Ref.Bus && id.Elem == w.Ref.Path }, nil
	}
	return func(w atspi.Window) bool { return strings.Contains(strings.ToLower(w.Name), strings.ToLower(sel)) }, nil
}
