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
func opWindows(c *opCall, _ wire.WindowsArgs) (*wire.WindowsAnswer, error) {
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
	ws, omitted, err := x.WindowsBounded()
	if err != nil {
		return nil, wire.Errorf(wire.NoStructure, "reading the window manager's state: %v", err)
	}
	list := &wire.WindowList{Windows: make([]wire.Window, 0, len(ws)), WM: wm, Size: wire.Size{W: x.Width, H: x.Height}, Omitted: omitted}
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

// screenWindows reads the window layout for screen's windows and maps
// each frame into the picture's pixels with its imageSpace. Without
// structure the picture stands and windowsAbsent says why.
func screenWindows(c *opCall, scr *wire.Screen) {
	x, _, err := c.l.xconn(c.ctx)
	if err != nil {
		scr.WindowsAbsent = err.Error()
		if we, ok := err.(*wire.Error); ok {
			scr.WindowsAbsent = we.Message
		}
		return
	}
	defer x.Close()
	// The 1000 topmost, as windows lists them; the screen's answer keeps
	// the reference tool's schema, so windows alone counts the rest.
	ws, err := x.Windows()
	if err != nil {
		scr.WindowsAbsent = fmt.Sprintf("reading the window manager's state: %v", err)
		return
	}
	sp := scr.ImageSpace
	scr.Windows = make([]wire.ScreenWindow, 0, len(ws))
	for _, w := range ws {
		if w.Minimized {
			continue // not in the picture
		}
		f := w.Frame
		x0, y0 := max(f.X, sp.Region.X), max(f.Y, sp.Region.Y)
		x1, y1 := min(f.X+f.W, sp.Region.X+sp.Region.W), min(f.Y+f.H, sp.Region.Y+sp.Region.H)
		sw := wire.ScreenWindow{ID: windowID(w.ID), Title: w.Title, Focused: w.Focused,
			Frame: wire.Region{X: f.X, Y: f.Y, W: f.W, H: f.H}, Visible: x1 > x0 && y1 > y0}
		if sw.Visible {
			ix0, iy0 := int(float64(x0-sp.Region.X)*sp.Scale), int(float64(y0-sp.Region.Y)*sp.Scale)
			ix1, iy1 := int(float64(x1-sp.Region.X)*sp.Scale+0.5), int(float64(y1-sp.Region.Y)*sp.Scale+0.5)
			sw.Image = wire.Region{X: ix0, Y: iy0, W: ix1 - ix0, H: iy1 - iy0}
		}
		scr.Windows = append(scr.Windows, sw)
	}
}
