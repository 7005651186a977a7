// Package atspi reads and drives the accessibility tree of a Linux desktop
// session (AT-SPI 2) over a D-Bus connection to its accessibility bus. The
// connection comes from a Dialer, so the bus may be a forwarded Unix socket
// on another machine (SSH streamlocal); the package never looks for a bus
// itself.
package atspi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// Dialer opens a stream to the accessibility bus's socket.
type Dialer func(ctx context.Context) (net.Conn, error)

// Names on the bus.
const (
	registryName = "org.a11y.atspi.Registry"
	rootPath     = dbus.ObjectPath("/org/a11y/atspi/accessible/root")
	nullPath     = dbus.ObjectPath("/org/a11y/atspi/null")

	ifAccessible   = "org.a11y.atspi.Accessible"
	ifComponent    = "org.a11y.atspi.Component"
	ifAction       = "org.a11y.atspi.Action"
	ifText         = "org.a11y.atspi.Text"
	ifEditableText = "org.a11y.atspi.EditableText"
	ifValue        = "org.a11y.atspi.Value"
	ifSelection    = "org.a11y.atspi.Selection"
	ifProperties   = "org.freedesktop.DBus.Properties"
)

// CallTimeout bounds each bus call when the caller's context has no sooner
// deadline: a program that stopped answering must not hold an op forever.
var CallTimeout = 5 * time.Second

// Client is one authenticated connection to an accessibility bus.
type Client struct {
	conn  *dbus.Conn
	watch watch

	mu     sync.Mutex
	silent map[string]time.Time // programs that let a call run out CallTimeout, and when
}

// externalAuth is D-Bus's EXTERNAL mechanism claiming uid; the bus compares
// it with the socket peer's credentials. Over a socket forwarded by sshd the
// peer is the session's own process on the remote machine, so the claim is
// the remote user's uid (`id -u` there), not dvvd's.
type externalAuth struct{ uid string }

func (a externalAuth) FirstData() ([]byte, []byte, dbus.AuthStatus) {
	return []byte("EXTERNAL"), []byte(fmt.Sprintf("%x", a.uid)), dbus.AuthOk
}

func (a externalAuth) HandleData([]byte) ([]byte, dbus.AuthStatus) { return nil, dbus.AuthError }

// Dial connects through dial and authenticates as uid (the decimal user id
// of the session's user on the bus's machine), then says Hello.
func Dial(ctx context.Context, dial Dialer, uid string) (*Client, error) {
	if _, err := strconv.ParseUint(uid, 10, 32); err != nil {
		return nil, fmt.Errorf("atspi: uid %q is not a number", uid)
	}
	nc, err := dial(ctx)
	if err != nil {
		return nil, fmt.Errorf("atspi: dial the accessibility bus: %w", err)
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = nc.SetDeadline(dl)
	} else {
		_ = nc.SetDeadline(time.Now().Add(CallTimeout))
	}
	conn, err := dbus.NewConn(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("atspi: %w", err)
	}
	if err := conn.Auth([]dbus.Auth{externalAuth{uid}}); err != nil {
		conn.Close()
		return nil, fmt.Errorf("atspi: authenticate on the accessibility bus as uid %s: %w", uid, err)
	}
	if err := conn.Hello(); err != nil {
		conn.Close()
		return nil, fmt.Errorf("atspi: hello on the accessibility bus: %w", err)
	}
	_ = nc.SetDeadline(time.Time{})
	return &Client{conn: conn, silent: map[string]time.Time{}}, nil
}

// Close ends the connection.
func (c *Client) Close() error { return c.conn.Close() }

// Alive reports whether the connection still stands: it ends when the bus,
// or the stream it was dialled over, goes away.
func (c *Client) Alive() bool { return c.conn.Connected() }

// Ref names one accessible object: the bus name of its program and its path.
type Ref struct {
	Bus  string
	Path dbus.ObjectPath
}

func (r Ref) null() bool { return r.Bus == "" || r.Path == nullPath || r.Path == "" }

// ErrGone says an object or its program is no longer on the bus.
var ErrGone = errors.New("atspi: the element is gone")

func (c *Client) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < CallTimeout {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, CallTimeout)
}

// SilentFor is how long a program that let a call run out CallTimeout is
// not asked again. The connection is kept across ops, so a program that was
// only busy for a while is asked again after it.
var SilentFor = 30 * time.Second

// ErrSilent says a program let an earlier call of this connection run out
// CallTimeout: it is not asked again for SilentFor, so a program that never answers costs
// one timeout, not one per element it claims to have.
var ErrSilent = fmt.Errorf("atspi: the program did not answer within the call timeout: %w", context.DeadlineExceeded)

// call invokes a method of iface on r and stores its reply in out.
func (c *Client) call(ctx context.Context, r Ref, iface, method string, out []any, args ...any) error {
	c.mu.Lock()
	since, silent := c.silent[r.Bus]
	if silent && time.Since(since) > SilentFor {
		delete(c.silent, r.Bus) // a program busy for a while is asked again
		silent = false
	}
	c.mu.Unlock()
	if silent {
		return fmt.Errorf("%w (%s)", ErrSilent, r.Bus)
	}
	cctx, cancel := c.ctx(ctx)
	defer cancel()
	call := c.conn.Object(r.Bus, r.Path).CallWithContext(cctx, iface+"."+method, 0, args...)
	if call.Err != nil {
		if errors.Is(call.Err, context.DeadlineExceeded) && ctx.Err() == nil {
			c.mu.Lock()
			c.silent[r.Bus] = time.Now()
			c.mu.Unlock()
		}
		return mapErr(call.Err)
	}
	if len(out) == 0 {
		return nil
	}
	return call.Store(out...)
}

func (c *Client) prop(ctx context.Context, r Ref, iface, name string) (dbus.Variant, error) {
	var v dbus.Variant
	err := c.call(ctx, r, ifProperties, "Get", []any{&v}, iface, name)
	return v, err
}

func (c *Client) setProp(ctx context.Context, r Ref, iface, name string, v any) error {
	return c.call(ctx, r, ifProperties, "Set", nil, iface, name, dbus.MakeVariant(v))
}

// mapErr turns "the program left" and "no such object" into ErrGone.
func mapErr(err error) error {
	var de dbus.Error
	if errors.As(err, &de) {
		switch de.Name {
		case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.UnknownObject":
			return fmt.Errorf("%w (%s)", ErrGone, de.Name)
		}
	}
	return fmt.Errorf("atspi: %w", err)
}
