package daemon

import (
	"fmt"

	"github.com/dvvhq/dvv/pkg/atspi"
	"github.com/dvvhq/dvv/pkg/wire"
)

var _ = register(wire.OpInspect, typed(opInspect))

// opInspect lists the accessibility elements of a window (or of every
// window) of the limb's desktop session, filtered by role, name and states.
func opInspect(c *opCall, a wire.InspectArgs) (*wire.InspectAnswer, error) {
	if err := c.l.mustBeConnected(); err != nil {
		return nil, err
	}
	cl, err := c.a11y()
	if err != nil {
		return nil, err
	}
	gen := c.l.generation()
	wins, err := cl.Windows(c.ctx)
	if err != nil {
		return nil, elementError(err, "")
	}
	want, err := windowSelector(c, a.Window)
	if err != nil {
		return nil, err
	}
	filter := atspi.Filter{Role: a.Role, Name: a.NameContains, States: a.States}
	res := &wire.InspectResult{Windows: []wire.ElementWindow{}, Elements: []wire.Element{}, Generation: gen}
	for _, w := range wins {
		if !want(w) {
			continue
		}
		nodes, truncated, err := cl.WalkRole(c.ctx, w.Ref, a.Role)
		if err != nil {
			continue // the window closed while it was read
		}
		res.Truncated = res.Truncated || truncated
		res.Windows = append(res.Windows, wire.ElementWindow{ID: atspi.IDOf(nodes, 0, gen).String(), Title: w.Name, Role: w.Role,
			App: w.App, PID: w.PID, Bounds: wire.Region{X: w.Bounds.X, Y: w.Bounds.Y, W: w.Bounds.W, H: w.Bounds.H}, States: w.States})
		for i := range nodes {
			if filter.Match(&nodes[i]) {
				res.Elements = append(res.Elements, wireElement(nodes, i, gen))
			}
		}
	}
	if a.Window != "" && len(res.Windows) == 0 {
		return nil, &wire.Error{Code: wire.NotFound, Message: fmt.Sprintf("no window %q in the accessibility tree of limb %s", a.Window, c.l.id),
			Next: "run inspect without window to list the windows, and name one by its id or a part of its title"}
	}
	return &wire.InspectAnswer{Inspect: res}, nil
}
