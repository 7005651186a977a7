package xwin

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dvvhq/dvv/pkg/untrusted"
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// Rect is a rectangle in root window (framebuffer) pixels.
type Rect struct{ X, Y, W, H int }

// Window is one client window the window manager lists in _NET_CLIENT_LIST.
type Window struct {
	ID        uint32
	Title     string // _NET_WM_NAME, else WM_NAME
	Class     string // WM_CLASS's class part
	Instance  string // WM_CLASS's instance part
	PID       int    // _NET_WM_PID (0: not set)
	Frame     Rect   // the client with the manager's decorations (_NET_FRAME_EXTENTS)
	Client    Rect   // what the program draws
	Focused   bool   // _NET_ACTIVE_WINDOW
	Workspace int    // _NET_WM_DESKTOP; -1: on every workspace
	Minimized bool   // _NET_WM_STATE_HIDDEN
}

// ErrNoWM says no EWMH window manager runs on the display.
var ErrNoWM = errors.New("no EWMH window manager runs on this display (_NET_SUPPORTING_WM_CHECK is not set)")

// WM answers the running window manager's name, or ErrNoWM.
func (c *Conn) WM() (string, error) {
	ids, err := c.PropCards(c.Root, "_NET_SUPPORTING_WM_CHECK")
	if err != nil {
		return "", err
	}
	if len(ids) == 0 {
		return "", ErrNoWM
	}
	name, _ := c.PropString(xproto.Window(ids[0]), "_NET_WM_NAME")
	return untrusted.Text(name, MaxTitle), nil
}

// Bounds on what a program on the display can make dvv read and answer:
// any client may make windows and name them. They are variables so tests
// can reach them with a few windows; nothing else changes them.
var (
	// MaxWindows is how many windows a list holds: the topmost ones.
	MaxWindows = 1000
	// MaxTitle is a title's length in bytes, cut on a character.
	MaxTitle = 1024
)

// Windows lists the managed windows, bottom to top when the manager
// keeps _NET_CLIENT_LIST_STACKING: at most MaxWindows, the topmost.
func (c *Conn) Windows() ([]Window, error) {
	ws, _, err := c.WindowsBounded()
	return ws, err
}

// WindowsBounded is Windows, also answering how many windows beyond
// MaxWindows (the lowest in the stacking order) were left out.
func (c *Conn) WindowsBounded() ([]Window, int, error) {
	if _, err := c.WM(); err != nil {
		return nil, 0, err
	}
	ids, err := c.PropCards(c.Root, "_NET_CLIENT_LIST_STACKING")
	if err != nil {
		return nil, 0, err
	}
	if len(ids) == 0 {
		if ids, err = c.PropCards(c.Root, "_NET_CLIENT_LIST"); err != nil {
			return nil, 0, err
		}
	}
	omitted := max(len(ids)-MaxWindows, 0)
	ids = ids[omitted:]
	active, _ := c.PropCards(c.Root, "_NET_ACTIVE_WINDOW")
	if err := c.Atoms(append(windowProps, "_NET_WM_STATE_HIDDEN")...); err != nil {
		return nil, 0, err
	}
	// Every window's requests go out before any reply is read: one round
	// trip over the sidecar for the lot, not one per property.
	pending := make([]pendingWindow, len(ids))
	for i, id := range ids {
		pending[i] = c.askWindow(xproto.Window(id))
	}
	out := make([]Window, 0, len(ids))
	for i, id := range ids {
		w, err := c.collect(pending[i])
		if err != nil {
			continue // closed between the list and its reading
		}
		w.Focused = len(active) > 0 && active[0] == id
		out = append(out, w)
	}
	return out, omitted, nil
}

// Window reads one managed window; an error when it is not (or no longer) there.
func (c *Conn) Window(id uint32) (Window, error) {
	ws, err := c.Windows()
	if err != nil {
		return Window{}, err
	}
	for _, w := range ws {
		if w.ID == id {
			return w, nil
		}
	}
	return Window{}, fmt.Errorf("window 0x%x is not among the windows the window manager lists", id)
}

// windowProps are the properties a Window is read from, in the order
// window's replies are taken.
var windowProps = []string{"_NET_FRAME_EXTENTS", "_NET_WM_NAME", "WM_NAME", "WM_CLASS", "_NET_WM_PID", "_NET_WM_DESKTOP", "_NET_WM_STATE"}

// Atoms interns names at once: every request goes out before the first
// reply is awaited, so a connection that crosses an SSH hop pays one round
// trip, not one per name.
func (c *Conn) Atoms(names ...string) error {
	cookies := make([]xproto.InternAtomCookie, len(names))
	for i, n := range names {
		cookies[i] = xproto.InternAtom(c.X, false, uint16(len(n)), n)
	}
	for i, n := range names {
		r, err := cookies[i].Reply()
		if err != nil {
			return err
		}
		c.mu.Lock()
		c.atoms[n] = r.Atom
		c.mu.Unlock()
	}
	return nil
}

// pendingWindow is a window's requests in flight.
type pendingWindow struct {
	id    xproto.Window
	geom  xproto.GetGeometryCookie
	trans xproto.TranslateCoordinatesCookie
	props []xproto.GetPropertyCookie
}

func (c *Conn) askWindow(id xproto.Window) pendingWindow {
	p := pendingWindow{id: id, geom: xproto.GetGeometry(c.X, xproto.Drawable(id)),
		trans: xproto.TranslateCoordinates(c.X, id, c.Root, 0, 0)}
	for _, name := range windowProps {
		c.mu.Lock()
		a := c.atoms[name]
		c.mu.Unlock()
		// A title is read to MaxTitle and the 4 bytes after (a character
		// that starts inside the bound arrives whole), so a window cannot
		// make a list hold megabytes; the other properties are short.
		p.props = append(p.props, xproto.GetProperty(c.X, false, id, a, xproto.GetPropertyTypeAny, 0, uint32(MaxTitle/4+2)))
	}
	return p
}

func cards(r *xproto.GetPropertyReply) []uint32 {
	if r == nil || r.Format != 32 {
		return nil
	}
	out := make([]uint32, r.ValueLen)
	for i := range out {
		out[i] = xgb.Get32(r.Value[i*4:])
	}
	return out
}

func text(r *xproto.GetPropertyReply) string {
	if r == nil || r.Format != 8 {
		return ""
	}
	return string(r.Value)
}

// collect takes a window's replies.
func (c *Conn) collect(p pendingWindow) (Window, error) {
	w := Window{ID: uint32(p.id), Workspace: -1}
	props := make([]*xproto.GetPropertyReply, len(p.props))
	for i, ck := range p.props {
		props[i], _ = ck.Reply() // an unset property is an empty reply; a gone window fails below
	}
	g, err := p.geom.Reply()
	if err != nil {
		return w, err
	}
	t, err := p.trans.Reply()
	if err != nil {
		return w, err
	}
	w.Client = Rect{int(t.DstX), int(t.DstY), int(g.Width), int(g.Height)}
	w.Frame = w.Client
	if ext := cards(props[0]); len(ext) == 4 {
		l, r, top, b := int(ext[0]), int(ext[1]), int(ext[2]), int(ext[3])
		w.Frame = Rect{w.Client.X - l, w.Client.Y - top, w.Client.W + l + r, w.Client.H + top + b}
	}
	if w.Title = text(props[1]); w.Title == "" {
		w.Title = text(props[2])
	}
	w.Title = untrusted.Text(w.Title, MaxTitle)
	if cls := text(props[3]); cls != "" {
		parts := strings.Split(strings.TrimRight(cls, "\x00"), "\x00")
		w.Instance = untrusted.Text(parts[0], MaxTitle)
		if len(parts) > 1 {
			w.Class = untrusted.Text(parts[1], MaxTitle)
		}
	}
	if pid := cards(props[4]); len(pid) > 0 {
		w.PID = int(pid[0])
	}
	if d := cards(props[5]); len(d) > 0 && d[0] != 0xffffffff {
		w.Workspace = int(d[0])
	}
	hidden, _ := c.Atom("_NET_WM_STATE_HIDDEN")
	for _, a := range cards(props[6]) {
		if xproto.Atom(a) == hidden {
			w.Minimized = true
		}
	}
	return w, nil
}

// Activate asks the manager to raise and focus the window (switching to
// its workspace, unminimizing it), as a taskbar does.
func (c *Conn) Activate(id uint32) error {
	return c.clientMessage(xproto.Window(id), "_NET_ACTIVE_WINDOW", 2, 0, 0)
}

// MoveResize asks the manager to put the frame's top left corner at x,y
// (NorthWest gravity) and, when w and h are positive, the client area to
// w by h. A negative x leaves the position as it is.
func (c *Conn) MoveResize(id uint32, x, y, w, h int) error {
	flags := uint32(1) | 2<<12 // NorthWestGravity, from a pager
	if x >= 0 {
		flags |= 1<<8 | 1<<9
	}
	if w > 0 && h > 0 {
		flags |= 1<<10 | 1<<11
	}
	return c.clientMessage(xproto.Window(id), "_NET_MOVERESIZE_WINDOW", flags, uint32(max(x, 0)), uint32(max(y, 0)), uint32(max(w, 0)), uint32(max(h, 0)))
}

// CloseWindow asks the manager to close the window politely (the program may
// ask its user first, or refuse).
func (c *Conn) CloseWindow(id uint32) error {
	return c.clientMessage(xproto.Window(id), "_NET_CLOSE_WINDOW", 0, 2)
}

// Workspaces are the manager's virtual desktops.
type Workspaces struct {
	Count   int
	Current int
	Names   []string
}

// Workspaces reads _NET_NUMBER_OF_DESKTOPS, _NET_CURRENT_DESKTOP and _NET_DESKTOP_NAMES.
func (c *Conn) Workspaces() (Workspaces, error) {
	if _, err := c.WM(); err != nil {
		return Workspaces{}, err
	}
	var ws Workspaces
	if n, _ := c.PropCards(c.Root, "_NET_NUMBER_OF_DESKTOPS"); len(n) > 0 {
		ws.Count = int(n[0])
	}
	if cur, _ := c.PropCards(c.Root, "_NET_CURRENT_DESKTOP"); len(cur) > 0 {
		ws.Current = int(cur[0])
	}
	names, _ := c.PropString(c.Root, "_NET_DESKTOP_NAMES")
	if names != "" {
		ws.Names = strings.Split(strings.TrimRight(names, "\x00"), "\x00")
	}
	return ws, nil
}

// SwitchWorkspace asks the manager to show workspace n (0-based).
func (c *Conn) SwitchWorkspace(n int) error {
	return c.clientMessage(c.Root, "_NET_CURRENT_DESKTOP", uint32(n), 0)
}
