package daemon

import (
	"fmt"
	"time"

	"github.com/dvvhq/dvv/pkg/wire"
)

var _ = register(wire.OpWorkspaces, typed(opWorkspaces))

// opWorkspaces lists the window manager's workspaces, or switches to one
// and reads _NET_CURRENT_DESKTOP back.
func opWorkspaces(c *opCall, a wire.WorkspacesArgs) (*wire.WorkspacesAnswer, error) {
	l := c.l
	if a.Action == "switch" {
		if err := l.checkLease(c.att); err != nil {
			return nil, err
		}
	}
	x, _, err := l.xconn(c.ctx)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	ws, err := x.Workspaces()
	if err != nil {
		return nil, wire.Errorf(wire.NoStructure, "%v", err)
	}
	out := &wire.WorkspaceList{Count: ws.Count, Current: ws.Current, Names: ws.Names}
	if a.Action == "switch" {
		n := *a.N
		if n >= ws.Count {
			return nil, &wire.Error{Code: wire.NotFound, Message: fmt.Sprintf("workspace %d does not exist: the window manager has %d (0 to %d)", n, ws.Count, ws.Count-1),
				Next: "pick one `workspaces LIMB` lists"}
		}
		if err := x.SwitchWorkspace(n); err != nil {
			return nil, wire.Errorf(wire.NoStructure, "the X server refused the request to the window manager: %v", err)
		}
		deadline := time.Now().Add(windowSettle)
		for {
			now, err := x.Workspaces()
			if err == nil && now.Current == n {
				out.Current, out.Verified = n, true
				break
			}
			if time.Now().After(deadline) || c.ctx.Err() != nil {
				out.Current = now.Current
				break
			}
			time.Sleep(20 * time.Millisecond) // EWMH has no reply to wait on
		}
	}
	return &wire.WorkspacesAnswer{Workspaces: out}, nil
}
