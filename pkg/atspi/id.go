package atspi

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/godbus/dbus/v5"
)

// ID names an element as an inspect saw it: where it lives (its program's
// bus name, its window and its own path) and what the screen looked like
// (the mirror's geometry generation and a fingerprint of the window's
// bounds and the element's place in it). An act checks both again before
// it touches anything, so an id from before a move or a relayout is
// refused instead of acting on whatever is there now.
type ID struct {
	Bus    string
	Window dbus.ObjectPath
	Elem   dbus.ObjectPath
	Gen    uint64
	Layout uint32
}

// ErrStale says an id's window moved or its layout changed since the id was
// read, or the screen's geometry changed.
var ErrStale = errors.New("atspi: the element id is stale")

// ErrBadID says a string is not an element id.
var ErrBadID = errors.New("atspi: not an element id")

const pathPrefix = "/org/a11y/atspi/accessible/"

// Layout is the fingerprint of a window's bounds and an element's bounds
// relative to it.
func Layout(window, elem Rect) uint32 {
	h := fnv.New32a()
	fmt.Fprintf(h, "%d,%d,%d,%d|%d,%d,%d,%d", window.X, window.Y, window.W, window.H,
		elem.X-window.X, elem.Y-window.Y, elem.W, elem.H)
	return h.Sum32()
}

// String is the id's text: BUS~WINDOW~ELEM~GEN~LAYOUT, paths shortened to
// their last part where they are AT-SPI's own.
func (id ID) String() string {
	return fmt.Sprintf("%s~%s~%s~%d~%08x", strings.TrimPrefix(id.Bus, ":"), shortPath(id.Window), shortPath(id.Elem), id.Gen, id.Layout)
}

func shortPath(p dbus.ObjectPath) string {
	s := string(p)
	if t := strings.TrimPrefix(s, pathPrefix); t != s && t != "" && !strings.ContainsAny(t, "/~") {
		return t
	}
	return "=" + base64.RawURLEncoding.EncodeToString([]byte(s))
}

func longPath(s string) (dbus.ObjectPath, bool) {
	if strings.HasPrefix(s, "=") {
		b, err := base64.RawURLEncoding.DecodeString(s[1:])
		if err != nil {
			return "", false
		}
		p := dbus.ObjectPath(b)
		return p, p.IsValid()
	}
	p := dbus.ObjectPath(pathPrefix + s)
	return p, s != "" && p.IsValid()
}

// ParseID reads an id's text.
func ParseID(s string) (ID, error) {
	f := strings.Split(s, "~")
	if len(f) != 5 || f[0] == "" {
		return ID{}, ErrBadID
	}
	var id ID
	id.Bus = ":" + f[0]
	for _, r := range f[0] {
		if !(r >= '0' && r <= '9' || r == '.') {
			return ID{}, ErrBadID
		}
	}
	var ok bool
	if id.Window, ok = longPath(f[1]); !ok {
		return ID{}, ErrBadID
	}
	if id.Elem, ok = longPath(f[2]); !ok {
		return ID{}, ErrBadID
	}
	gen, err := strconv.ParseUint(f[3], 10, 64)
	if err != nil {
		return ID{}, ErrBadID
	}
	lay, err := strconv.ParseUint(f[4], 16, 32)
	if err != nil {
		return ID{}, ErrBadID
	}
	id.Gen, id.Layout = gen, uint32(lay)
	return id, nil
}

// IDOf makes the id of nodes[i] within a walk of one window (nodes[0]).
func IDOf(nodes []Node, i int, gen uint64) ID {
	w, n := nodes[0], nodes[i]
	return ID{Bus: n.Ref.Bus, Window: w.Ref.Path, Elem: n.Ref.Path, Gen: gen, Layout: Layout(w.Bounds, n.Bounds)}
}

// Resolve reads the element an id names and refuses it (ErrStale) when the
// geometry generation is not gen or the window's or element's bounds are
// not what they were; ErrGone when the program or the element left.
func (c *Client) Resolve(ctx context.Context, id ID, gen uint64) (Node, error) {
	if id.Gen != gen {
		return Node{}, fmt.Errorf("%w: the screen's geometry changed (generation %d, the id was read at %d)", ErrStale, gen, id.Gen)
	}
	wb, err := c.extents(ctx, Ref{id.Bus, id.Window})
	if err != nil {
		return Node{}, err
	}
	n, err := c.Node(ctx, Ref{id.Bus, id.Elem})
	if err != nil {
		return Node{}, err
	}
	if n.Has("defunct") {
		return Node{}, fmt.Errorf("%w (defunct)", ErrGone)
	}
	if Layout(wb, n.Bounds) != id.Layout {
		return Node{}, fmt.Errorf("%w: its window or the element moved or was resized since it was read (window now at %d,%d %dx%d)", ErrStale, wb.X, wb.Y, wb.W, wb.H)
	}
	return n, nil
}
