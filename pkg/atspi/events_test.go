package atspi

import (
	"context"
	"fmt"
	"slices"
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

// A walk for one role answers that role's elements exactly as a full walk
// does (actions, text, names from labels and rows included), in a form and
// a check list.
func TestWalkRoleAnswersItsRoleAsAFullWalk(t *testing.T) {
	d := startDesk(t)
	c := d.client(t)
	d.start(t, "zenity", "--forms", "--title", "formbed", "--add-entry", "Login", "--add-password", "Secret")
	d.start(t, "zenity", "--list", "--checklist", "--title", "listbed", "--column", "pick", "--column", "fruit", "FALSE", "apple", "FALSE", "pear")
	for _, w := range []struct{ title, role string }{{"formbed", "text"}, {"formbed", "push button"}, {"listbed", "table cell"}} {
		full := window(t, c, w.title)
		part, _, err := c.WalkRole(context.Background(), full[0].Ref, strings.ToUpper(w.role))
		if err != nil {
			t.Fatal(err)
		}
		// Focus is left out: the other window, still starting, may take
		// it between the two walks.
		pick := func(nodes []Node) string {
			var b strings.Builder
			for _, n := range nodes {
				if n.Role == w.role {
					states := slices.DeleteFunc(slices.Clone(n.States), func(s string) bool { return s == "focused" })
					fmt.Fprintf(&b, "%s %q %v %v %q %v\n", n.Ref.Path, n.Name, states, n.Actions, n.Text, n.Bounds)
				}
			}
			return b.String()
		}
		if want, got := pick(full), pick(part); want == "" || got != want {
			t.Fatalf("%s in %s: a full walk reads\n%s\na walk for the role\n%s", w.role, w.title, want, got)
		}
	}
}
