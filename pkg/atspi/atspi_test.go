package atspi

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
)

func TestSetTextIsReadBackExactlyAndTheProgramPrintsIt(t *testing.T) {
	d := startDesk(t)
	c := d.client(t)
	p := d.start(t, "zenity", "--entry", "--title", "entrybed", "--text", "Your name")
	nodes := window(t, c, "entrybed")
	_, entry := find(t, nodes, Filter{Role: "text", Name: "your name", States: []string{"editable"}})
	want := "Grüße, 42 <&> ok"
	r, err := c.SetText(context.Background(), entry, want)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Verified || r.Text != want {
		t.Fatalf("set-text answered %+v, want verified with %q", r, want)
	}
	// Insert goes in at the caret, wherever the program left it; the
	// readback is the whole text, and the program must print exactly that.
	r, err = c.Insert(context.Background(), entry, "!")
	if err != nil || !r.Verified || len([]rune(r.Text)) != len([]rune(want))+1 || strings.Replace(r.Text, "!", "", 1) != want {
		t.Fatalf("insert answered %+v, %v", r, err)
	}
	want = r.Text
	_, ok := find(t, nodes, Filter{Role: "push button", Name: "OK"})
	if _, err := c.Invoke(context.Background(), ok, "click"); err != nil {
		t.Fatal(err)
	}
	if got := p.output(t); got != want+"\n" {
		t.Fatalf("zenity printed %q, want %q", got, want+"\n")
	}
}

func TestProtectedFieldIsNeverReadBack(t *testing.T) {
	d := startDesk(t)
	c := d.client(t)
	p := d.start(t, "zenity", "--forms", "--title", "pwbed", "--add-password", "Secret", "--add-entry", "Login")
	nodes := window(t, c, "pwbed")
	_, pw := find(t, nodes, Filter{Role: "password text", Name: "secret"})
	const secret = "hunter2-s3cret"
	r, err := c.SetText(context.Background(), pw, secret)
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != "" || !r.Verified || strings.Contains(r.Detail, secret) {
		t.Fatalf("set-text on a password field answered %+v: it must compare lengths only and hand back no text", r)
	}
	if _, err := c.Read(context.Background(), pw); !errors.Is(err, ErrProtected) {
		t.Fatalf("read of a password field: %v, want ErrProtected", err)
	}
	for _, n := range window(t, c, "pwbed") {
		if strings.Contains(n.Text, secret) || strings.Contains(n.Name, secret) {
			t.Fatalf("inspect shows the secret in %s %q text %q", n.Role, n.Name, n.Text)
		}
	}
	_, ok := find(t, nodes, Filter{Role: "push button", Name: "OK"})
	if _, err := c.Invoke(context.Background(), ok, ""); err != nil {
		t.Fatal(err)
	}
	// The program itself got the secret: the act did happen.
	if got := p.output(t); !strings.HasPrefix(got, secret+"|") {
		t.Fatalf("zenity printed %q, want the secret first", got)
	}
}

func TestComboOptionChosenIsSeenByTheProgram(t *testing.T) {
	d := startDesk(t)
	c := d.client(t)
	p := d.start(t, "zenity", "--forms", "--title", "combobed", "--add-combo", "Color", "--combo-values", "red|green|blue")
	nodes := window(t, c, "combobed")
	_, green := find(t, nodes, Filter{Role: "menu item", Name: "green"})
	r, err := c.Select(context.Background(), green)
	if err != nil || !r.Verified {
		t.Fatalf("select answered %+v, %v", r, err)
	}
	_, ok := find(t, nodes, Filter{Role: "push button", Name: "OK"})
	if _, err := c.Invoke(context.Background(), ok, ""); err != nil {
		t.Fatal(err)
	}
	if got := p.output(t); got != "green\n" {
		t.Fatalf("zenity printed %q, want green", got)
	}
}

func TestCheckBoxToggledIsSeenByTheProgram(t *testing.T) {
	d := startDesk(t)
	c := d.client(t)
	p := d.start(t, "zenity", "--list", "--checklist", "--title", "checkbed", "--column", "pick", "--column", "fruit",
		"FALSE", "apple", "FALSE", "pear", "FALSE", "plum")
	nodes := window(t, c, "checkbed")
	var pear Node
	for _, n := range nodes {
		if n.Name == "pear" && hasAction(n, "toggle") {
			pear = n
		}
	}
	if pear.Ref.Bus == "" {
		t.Fatal("no check box named after the pear row")
	}
	r, err := c.Toggle(context.Background(), pear, "on")
	if err != nil || !r.Verified {
		t.Fatalf("toggle on answered %+v, %v", r, err)
	}
	// Asking again for on changes nothing and says so.
	if r, err := c.Toggle(context.Background(), pear, "on"); err != nil || !r.Verified || !strings.Contains(r.Detail, "already") {
		t.Fatalf("toggle on again answered %+v, %v", r, err)
	}
	_, ok := find(t, nodes, Filter{Role: "push button", Name: "OK"})
	if _, err := c.Invoke(context.Background(), ok, ""); err != nil {
		t.Fatal(err)
	}
	if got := p.output(t); got != "pear\n" {
		t.Fatalf("zenity printed %q, want pear", got)
	}
}

func TestValueWithinRangeIsSetAndOutsideRefused(t *testing.T) {
	d := startDesk(t)
	c := d.client(t)
	p := d.start(t, "zenity", "--scale", "--title", "scalebed", "--min-value", "0", "--max-value", "50", "--value", "10")
	nodes := window(t, c, "scalebed")
	_, slider := find(t, nodes, Filter{Role: "slider"})
	if _, err := c.SetValue(context.Background(), slider, 51); !errors.Is(err, ErrRange) {
		t.Fatalf("value 51 of 0..50: %v, want ErrRange", err)
	}
	r, err := c.SetValue(context.Background(), slider, 37)
	if err != nil || !r.Verified {
		t.Fatalf("value 37 answered %+v, %v", r, err)
	}
	_, ok := find(t, nodes, Filter{Role: "push button", Name: "OK"})
	if _, err := c.Invoke(context.Background(), ok, ""); err != nil {
		t.Fatal(err)
	}
	if got := p.output(t); got != "37\n" {
		t.Fatalf("zenity printed %q, want 37", got)
	}
}

func TestIDIsRefusedAfterItsWindowMoves(t *testing.T) {
	d := startDesk(t)
	c := d.client(t)
	d.start(t, "zenity", "--entry", "--title", "movebed", "--text", "Where")
	nodes := window(t, c, "movebed")
	i, _ := find(t, nodes, Filter{Role: "text", Name: "where"})
	id := IDOf(nodes, i, 1)
	back, err := ParseID(id.String())
	if err != nil || back != id {
		t.Fatalf("id %q reads back as %+v, %v", id, back, err)
	}
	if _, err := c.Resolve(context.Background(), id, 1); err != nil {
		t.Fatalf("a fresh id is refused: %v", err)
	}
	if _, err := c.Resolve(context.Background(), id, 2); !errors.Is(err, ErrStale) {
		t.Fatalf("after a geometry change: %v, want ErrStale", err)
	}
	win := strings.Fields(string(mustOutput(t, d.cmd("xdotool", "search", "--sync", "--name", "^movebed$"))))[0]
	before := nodes[0].Bounds
	mustOutput(t, d.cmd("xdotool", "windowmove", "--sync", win, "40", "50"))
	testbed.Eventually(t, 15*time.Second, "the window's new place on the bus", func() bool {
		b, err := c.extents(context.Background(), nodes[0].Ref)
		return err == nil && b != before
	})
	if _, err := c.Resolve(context.Background(), id, 1); !errors.Is(err, ErrStale) {
		t.Fatalf("after the window moved: %v, want ErrStale", err)
	}
}
