// Package xwin reads and drives the windows of an X11 desktop through the
// window manager's EWMH state, over any connection to the X server (dvvd
// reaches it through the desktop's SSH sidecar). It speaks X through
// github.com/jezek/xgb; it knows nothing of limbs or the wire.
package xwin

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"sync"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

func init() {
	// xgb logs to stderr when no local authority matches; the authority
	// dvv sends is the remote session's own (see cookieConn), so that
	// note is noise in dvvd's log.
	xgb.Logger = log.New(io.Discard, "", 0)
}

// Conn is one connection to an X server.
type Conn struct {
	X    *xgb.Conn
	Root xproto.Window
	// Width and Height are the root window's size: the framebuffer's on
	// a VNC server that is the X server itself (Xvnc, x11vnc's display).
	Width, Height int

	nc    net.Conn
	mu    sync.Mutex
	atoms map[string]xproto.Atom
}

// Open speaks the X connection setup on nc, authorizing with an
// MIT-MAGIC-COOKIE-1 when cookie is 16 bytes (nil: no authorization).
// The authority is the one given, never a local file: nc reaches a
// remote session whose cookie was read over the same sidecar.
func Open(nc net.Conn, cookie []byte) (*Conn, error) {
	if cookie != nil && len(cookie) != 16 {
		return nil, fmt.Errorf("an MIT-MAGIC-COOKIE-1 has 16 bytes, not %d", len(cookie))
	}
	x, err := xgb.NewConnNet(&cookieConn{Conn: nc, cookie: cookie})
	if err != nil {
		nc.Close()
		return nil, err
	}
	setup := xproto.Setup(x)
	if setup == nil || len(setup.Roots) == 0 {
		x.Close()
		return nil, errors.New("the X server's setup names no screen")
	}
	s := setup.DefaultScreen(x)
	return &Conn{X: x, Root: s.Root, Width: int(s.WidthInPixels), Height: int(s.HeightInPixels),
		nc: nc, atoms: map[string]xproto.Atom{}}, nil
}

// Close ends the connection at once, also while a request waits for a
// server that stopped answering: the stream is closed first, which fails
// any reply still awaited (xgb's own Close makes a round trip first, and
// would wait for that server forever). It may be called more than once.
func (c *Conn) Close() {
	c.nc.Close()
	c.X.Close()
}

// cookieConn replaces the connection setup request xgb writes first (its
// authority comes from the local XAUTHORITY) with one carrying the remote
// session's cookie.
type cookieConn struct {
	net.Conn
	cookie []byte
	sent   bool
}

func (c *cookieConn) Write(b []byte) (int, error) {
	if c.sent {
		return c.Conn.Write(b)
	}
	c.sent = true
	name := ""
	if c.cookie != nil {
		name = "MIT-MAGIC-COOKIE-1"
	}
	pad := func(n int) int { return (n + 3) &^ 3 }
	buf := make([]byte, 12+pad(len(name))+pad(len(c.cookie)))
	buf[0] = 'l' // little-endian, as xgb reads replies
	binary.LittleEndian.PutUint16(buf[2:], 11)
	binary.LittleEndian.PutUint16(buf[6:], uint16(len(name)))
	binary.LittleEndian.PutUint16(buf[8:], uint16(len(c.cookie)))
	copy(buf[12:], name)
	copy(buf[12+pad(len(name)):], c.cookie)
	if _, err := c.Conn.Write(buf); err != nil {
		return 0, err
	}
	return len(b), nil
}

// Atom interns name (cached).
func (c *Conn) Atom(name string) (xproto.Atom, error) {
	c.mu.Lock()
	a, ok := c.atoms[name]
	c.mu.Unlock()
	if ok {
		return a, nil
	}
	r, err := xproto.InternAtom(c.X, false, uint16(len(name)), name).Reply()
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	c.atoms[name] = r.Atom
	c.mu.Unlock()
	return r.Atom, nil
}

func (c *Conn) prop(w xproto.Window, name string) (*xproto.GetPropertyReply, error) {
	a, err := c.Atom(name)
	if err != nil {
		return nil, err
	}
	return xproto.GetProperty(c.X, false, w, a, xproto.GetPropertyTypeAny, 0, 1<<16).Reply()
}

// PropString is a string property (STRING or UTF8_STRING); "" when unset.
func (c *Conn) PropString(w xproto.Window, name string) (string, error) {
	r, err := c.prop(w, name)
	if err != nil || r == nil || r.Format != 8 {
		return "", err
	}
	return string(r.Value), nil
}

// PropCards is a 32-bit property (CARDINAL, WINDOW, ATOM) as numbers; nil when unset.
func (c *Conn) PropCards(w xproto.Window, name string) ([]uint32, error) {
	r, err := c.prop(w, name)
	if err != nil || r == nil || r.Format != 32 {
		return nil, err
	}
	out := make([]uint32, r.ValueLen)
	for i := range out {
		out[i] = xgb.Get32(r.Value[i*4:])
	}
	return out, nil
}

// RootString is a string property of the root window, such as the
// accessibility bus's address in AT_SPI_BUS.
func (c *Conn) RootString(name string) (string, error) { return c.PropString(c.Root, name) }

// clientMessage sends an EWMH request to the root window, as pagers and
// taskbars do (source indication 2).
func (c *Conn) clientMessage(w xproto.Window, name string, data ...uint32) error {
	a, err := c.Atom(name)
	if err != nil {
		return err
	}
	var d [5]uint32
	copy(d[:], data)
	ev := xproto.ClientMessageEvent{Format: 32, Window: w, Type: a, Data: xproto.ClientMessageDataUnionData32New(d[:])}
	return xproto.SendEventChecked(c.X, false, c.Root,
		xproto.EventMaskSubstructureRedirect|xproto.EventMaskSubstructureNotify, string(ev.Bytes())).Check()
}
