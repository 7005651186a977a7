package atspi

import (
	"context"
	"strings"
	"sync"

	"github.com/godbus/dbus/v5"
)

// changeEvents are the accessibility events after which a search or a text
// may answer differently: an element's states, a container's children, a
// name, a text, and windows created, closed, shown or hidden. A program's
// bridge emits an event only while some client has registered it with the
// registry, so they are registered while someone watches and dropped after.
var changeEvents = []string{
	"object:state-changed",
	"object:children-changed",
	"object:property-change:accessible-name",
	"object:text-changed",
	"window:",
}

// eventInterfaces are the signal interfaces those events arrive on.
var eventInterfaces = []string{"org.a11y.atspi.Event.Object", "org.a11y.atspi.Event.Window"}

const registryPath = dbus.ObjectPath("/org/a11y/atspi/registry")

// watch is a client's event subscription, shared by its watchers.
type watch struct {
	sub      sync.Mutex // held across the registration's calls
	watchers int
	reading  bool // the signal reader runs (started once per connection)

	mu      sync.Mutex    // never held across a call: the reader takes it at every event
	changed chan struct{} // closed at the next event, then replaced
}

// Watch registers the change events (once for all of a connection's
// watchers) and answers next, whose channel closes at the first event after
// the call, or when the connection ends; stop ends this watcher, and the
// last one drops the registration. Take next's channel before reading the
// tree, so a change while it is read is not missed.
func (c *Client) Watch(ctx context.Context) (next func() <-chan struct{}, stop func(), err error) {
	w := &c.watch
	w.sub.Lock()
	defer w.sub.Unlock()
	w.mu.Lock()
	if w.changed == nil {
		w.changed = make(chan struct{})
	}
	w.mu.Unlock()
	if w.watchers == 0 {
		if err := c.subscribe(ctx); err != nil {
			c.unsubscribe()
			return nil, nil, err
		}
	}
	if !w.reading {
		w.reading = true
		sig := make(chan *dbus.Signal, 64)
		c.conn.Signal(sig)
		go c.readEvents(sig)
	}
	w.watchers++
	var once sync.Once
	next = func() <-chan struct{} {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.changed
	}
	stop = func() {
		once.Do(func() {
			w.sub.Lock()
			defer w.sub.Unlock()
			if w.watchers--; w.watchers == 0 {
				c.unsubscribe()
			}
		})
	}
	return next, stop, nil
}

// subscribe asks the bus for the events' signals and the registry to have
// the programs emit them.
func (c *Client) subscribe(ctx context.Context) error {
	cctx, cancel := c.ctx(ctx)
	defer cancel()
	for _, i := range eventInterfaces {
		if err := c.conn.AddMatchSignalContext(cctx, dbus.WithMatchInterface(i)); err != nil {
			return mapErr(err)
		}
	}
	for _, e := range changeEvents {
		if err := c.call(ctx, Ref{registryName, registryPath}, "org.a11y.atspi.Registry", "RegisterEvent", nil, e); err != nil {
			return err
		}
	}
	return nil
}

// unsubscribe undoes subscribe, as far as it got; errors are dropped (the
// bus forgets a connection's registrations when it ends anyway).
func (c *Client) unsubscribe() {
	ctx, cancel := c.ctx(context.Background())
	defer cancel()
	for _, e := range changeEvents {
		_ = c.call(ctx, Ref{registryName, registryPath}, "org.a11y.atspi.Registry", "DeregisterEvent", nil, e)
	}
	for _, i := range eventInterfaces {
		_ = c.conn.RemoveMatchSignalContext(ctx, dbus.WithMatchInterface(i))
	}
}

// readEvents wakes the watchers at every event, and for good when the
// connection ends (its signal channel is closed then).
func (c *Client) readEvents(sig chan *dbus.Signal) {
	w := &c.watch
	for s := range sig {
		if !strings.HasPrefix(s.Name, "org.a11y.atspi.Event.") {
			continue
		}
		w.mu.Lock()
		close(w.changed)
		w.changed = make(chan struct{})
		w.mu.Unlock()
	}
	w.mu.Lock()
	close(w.changed)
	w.changed = closedChan
	w.mu.Unlock()
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()
