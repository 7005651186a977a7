package atspi

import (
	"context"
	"strings"
	"testing"
	"time"
)

// registered lists the events the registry holds for bus name.
func registered(t *testing.T, c *Client, name string) []string {
	t.Helper()
	var evs []struct{ Bus, Event string }
	if err := c.call(context.Background(), Ref{registryName, registryPath}, "org.a11y.atspi.Registry", "GetRegisteredEvents", []any{&evs}); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		if e.Bus == name {
			out = append(out, e.Event)
		}
	}
	return out
}

// eventBefore fails unless ch closes: the guard is generous because only a
// missing event, not a slow one, is the failure.
func eventBefore(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(15 * time.Second):
		t.Fatalf("no accessibility event after %s", what)
	}
}

// A watch registers the change events with the registry (the programs emit
// nothing otherwise), wakes at text typed into an entry by the X server's
// keyboard, as a read of the tree then shows, and at a window opening, which
// a search would then find; stopping the last watcher drops the
// registration again.
func TestWatchWakesAtChangesAReadThenSees(t *testing.T) {
	d := startDesk(t)
	c := d.client(t)
	d.start(t, "zenity", "--entry", "--title", "entrybed", "--text", "Your name")
	nodes := window(t, c, "entrybed")
	_, entry := find(t, nodes, Filter{Role: "text", Name: "your name", States: []string{"editable"}})
	self := c.conn.Names()[0]
	if got := registered(t, c, self); len(got) != 0 {
		t.Fatalf("events registered before any watch: %v", got)
	}

	next, stop, err := c.Watch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := registered(t, c, self); len(got) != len(changeEvents) {
		t.Fatalf("the registry holds %v for this connection, want %v", got, changeEvents)
	}
	ch := next()
	if err := d.cmd("xdotool", "type", "--delay", "50", "abc").Run(); err != nil {
		t.Fatal(err)
	}
	eventBefore(t, ch, "typing into the entry")
	r, err := c.Read(context.Background(), entry)
	if err != nil || r.Text == "" || !strings.HasPrefix("abc", r.Text) {
		t.Fatalf("after the event the entry reads %q, %v: want a prefix of what was typed", r.Text, err)
	}

	ch = next()
	d.start(t, "zenity", "--info", "--title", "infobed", "--text", "hello")
	eventBefore(t, ch, "a window opening")
	window(t, c, "infobed")

	stop()
	stop() // a second stop of the same watcher changes nothing
	if got := registered(t, c, self); len(got) != 0 {
		t.Fatalf("events still registered after the last watcher stopped: %v", got)
	}
}
