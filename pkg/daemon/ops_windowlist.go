package daemon

// This file is not ops_windows.go, which Go would build for Windows only.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dvvhq/dvv/pkg/wire"
	"github.com/dvvhq/dvv/pkg/xwin"
)

var _ = register(wire.OpWindows, typed(opWindows))

// opWindows lists the windows the session's window manager manages, read
// over the sidecar from EWMH.
func opWindows(c *call, _ wire.WindowsArgs) (*wire.WindowsAnswer, error) {
	x, info, err := c.l.xconn(c.ctx)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	list, err := readWindows(x)
	if err != nil {
		return nil, err
	}
	list.Display = info.Display
	return &wire.WindowsAnswer{Windows: list}, nil
}

func readWindows(x *xwin.Conn) (*wire.WindowList, error) {
	wm, err := x.WM()
	if err != nil {
		return nil, wire.Errorf(wire.NoStructure, "%v", err)
	}
	ws, err := x.Windows()
	if err != nil {
		return nil, wire.Errorf(wire.NoStructure, "reading the window manager's state: %v", err)
	}
	list := &wire.WindowList{Windows: make([]wire.Window, 0, len(ws)), WM: wm, Size: wire.Size{W: x.Width, H: x.Height}}
	for _, w := range ws {
		list.Windows = append(list.Windows, wireWindow(w))
		if w.Focused {
			list.Active = windowID(w.ID)
		}
	}
	return list, nil
}

func wireWindow(w xwin.Window) wire.Window {
	r := func(b xwin.Rect) wire.Region { return wire.Region{X: b.X, Y: b.Y, W: b.W, H: b.H} }
	return wire.Window{ID: windowID(w.ID), Title: w.Title, Class: w.Class, Instance: w.Instance, PID: w.PID,
		Frame: r(w.Frame), Client: r(w.Client), Focused: w.Focused, Workspace: w.Workspace, Minimized: w.Minimized}
}

func windowID(id uint32) string { return fmt.Sprintf("0x%x", id) }

// parseWindowID reads an id as windows answers it (0x…), or in decimal
// as xdotool prints it.
func parseWindowID(s string) (uint32, error) {
	base, digits := 10, s
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		base, digits = 16, h
	}
	n, err := strconv.ParseUint(digits, base, 32)
	if err != nil || n == 0 {
		return 0, &wire.Error{Code: wire.BadRequest, Message: fmt.Sprintf("window %q is not a window id", s),
			Next: "give an id as `windows` lists it (0x1a00007)"}
	}
	return uint32(n), nil
}
