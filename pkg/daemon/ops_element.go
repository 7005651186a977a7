package daemon

import (
	"context"
	"fmt"

	"github.com/dvvhq/dvv/pkg/atspi"
	"github.com/dvvhq/dvv/pkg/wire"
)

var _ = register(wire.OpElement, typed(opElement))

// opElement acts on one element an inspect named, after checking the id
// still names it where it was (the geometry generation, its window's bounds
// and its place in the window), and answers what it read back.
func opElement(c *opCall, a wire.ElementArgs) (*wire.ElementAnswer, error) {
	id, err := atspi.ParseID(a.Element)
	if err != nil {
		return nil, &wire.Error{Code: wire.BadRequest, Message: fmt.Sprintf("element %.80q is not an element id", a.Element),
			Next: "take an element id from inspect (dvv inspect LIMB …)"}
	}
	if err := c.l.mustBeConnected(); err != nil {
		return nil, err
	}
	if a.Action != "read" && a.Action != "locate" {
		if err := c.l.checkLease(c.att); err != nil {
			return nil, err
		}
	}
	cl, err := c.a11y()
	if err != nil {
		return nil, err
	}
	n, err := cl.Resolve(c.ctx, id, c.l.generation())
	if err != nil {
		return nil, elementError(err, a.Element)
	}
	r, err := elementAct(c.ctx, cl, n, a)
	if err != nil {
		return nil, elementError(err, a.Element)
	}
	res := &wire.ElementResult{Verified: r.Verified, Detail: r.Detail, Value: wireValue(r.Value)}
	if !n.Protected {
		res.Text = r.Text
	}
	// The element as it is now, with an id for its present layout (an act
	// that closed its window, OK, leaves it as it was read before).
	win := atspi.Node{Ref: atspi.Ref{Bus: id.Bus, Path: id.Window}}
	if wb, err := cl.Extents(c.ctx, win.Ref); err == nil {
		win.Bounds = wb
	}
	if after, err := cl.Node(c.ctx, n.Ref); err == nil {
		n = after
	}
	res.Generation = c.l.generation()
	res.Element = wireElement([]atspi.Node{win, n}, 1, res.Generation)
	return &wire.ElementAnswer{Element: res}, nil
}

// elementAct does what the element op's action says to element n.
func elementAct(ctx context.Context, cl *atspi.Client, n atspi.Node, a wire.ElementArgs) (atspi.Result, error) {
	switch a.Action {
	case "focus":
		return cl.Focus(ctx, n)
	case "set-text":
		return cl.SetText(ctx, n, *a.Text)
	case "insert":
		return cl.Insert(ctx, n, *a.Text)
	case "invoke":
		return cl.Invoke(ctx, n, a.Invoke)
	case "toggle":
		return cl.Toggle(ctx, n, a.State)
	case "select":
		return cl.Select(ctx, n)
	case "value":
		return cl.SetValue(ctx, n, *a.Value)
	case "expand", "collapse":
		return cl.Expand(ctx, n, a.Action == "expand")
	case "read":
		return cl.Read(ctx, n)
	case "locate":
		return atspi.Result{Verified: true, Detail: "the element is where its id says"}, nil
	}
	return atspi.Result{}, nil
}
