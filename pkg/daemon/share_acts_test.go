package daemon

import (
	"testing"
	"time"

	"github.com/dvvhq/dvv/pkg/keys"
)

// TestPersonActs: a person's raw input through a share becomes the acts a
// recording keeps: a press and release in place is a click (by button), one
// that moved a drag, a wheel notch a scroll, keys with ctrl a chord, and
// typed characters one type act with their count only.
func TestPersonActs(t *testing.T) {
	l := &Limb{}
	rec := &recorder{started: time.Now(), acts: make(chan actRecord, 64)}
	l.rec = rec
	p := newPersonActs(l, "ann")
	p.pointer(10, 10, 0)
	p.pointer(10, 10, 1) // press and release in place: a click
	p.pointer(11, 10, 0)
	p.pointer(20, 20, 4) // right button
	p.pointer(20, 20, 0)
	p.pointer(30, 30, 1) // a drag to 90,40
	p.pointer(60, 35, 1)
	p.pointer(90, 40, 0)
	p.pointer(90, 40, 16) // a wheel notch down
	p.pointer(90, 40, 0)
	for _, r := range "Hi!" {
		sym, _ := keys.RuneKeysym(r)
		p.key(sym, true)
		p.key(sym, false)
	}
	p.key(keys.XK_Control_L, true)
	p.key('c', true)
	p.key('c', false)
	p.key(keys.XK_Control_L, false)
	p.key(keys.XK_Return, true)
	p.key(keys.XK_Return, false)
	close(rec.acts)
	var got []actRecord
	for a := range rec.acts {
		got = append(got, a)
	}
	want := []string{"click click 10,10", "click right 20,20", "click drag 30,30 left", "click scroll 90,40 down", "type 3", "key ctrl+c", "key Enter"}
	if len(got) != len(want) {
		t.Fatalf("got %d acts, want %d: %+v", len(got), len(want), got)
	}
	for i, a := range got {
		var s string
		switch a.Op {
		case "click":
			s = "click " + a.Action + " " + itoa(*a.X) + "," + itoa(*a.Y)
			if a.Action == "drag" {
				s += " " + a.Button
				if *a.ToX != 90 || *a.ToY != 40 {
					t.Errorf("drag to %d,%d", *a.ToX, *a.ToY)
				}
			}
			if a.Action == "scroll" {
				s += " " + a.Direction
			}
		case "type":
			s = "type " + itoa(*a.TextLen)
		case "key":
			s = "key " + a.Keys
		}
		if s != want[i] || a.Attachment != "ann" || a.Outcome != "ok" {
			t.Errorf("act %d = %q by %q (%s), want %q by ann", i, s, a.Attachment, a.Outcome, want[i])
		}
	}
}
