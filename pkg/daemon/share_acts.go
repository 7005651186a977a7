package daemon

import (
	"strings"
	"sync"
	"time"

	"github.com/dvvhq/dvv/pkg/keys"
)

// personActs turns a person's raw input through the viewer or a share
// (pointer positions with button masks, key presses) into the acts a
// recording keeps, by the person's name, as an agent's acts are kept: a
// press and release in place is a click, one that moved is a drag, a wheel
// notch is a scroll, a key with modifiers is a key chord, and a run of
// printable characters is one type act holding its length only (a
// recording never holds typed text, docs/recording.md).
type personActs struct {
	l    *Limb
	name string

	mu      sync.Mutex
	buttons uint8 // the last mask seen
	x, y    int
	// downs are the presses not yet released: where and when.
	downs map[uint8]personPress
	mods  map[string]bool // modifiers held, by their chord names
	// text counts printable characters typed since the last other act,
	// from textAt.
	text   int
	textAt time.Time
}

type personPress struct {
	x, y int
	at   time.Time
}

// personMoved is how far a pointer may travel with a button down and
// still be a click.
const personMoved = 4

var personButtons = []struct {
	bit    uint8
	action string // a click of this button
	name   string // a drag's button
}{{1, "click", "left"}, {2, "middle", "middle"}, {4, "right", "right"}}

func newPersonActs(l *Limb, name string) *personActs {
	return &personActs{l: l, name: name, downs: map[uint8]personPress{}, mods: map[string]bool{}}
}

// recording is the limb's recorder, nil when none runs.
func (p *personActs) recording() *recorder {
	p.l.mu.Lock()
	defer p.l.mu.Unlock()
	return p.l.rec
}

func (p *personActs) pointer(x, y int, b uint8) {
	rec := p.recording()
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	pressed, released := b&^p.buttons, p.buttons&^b
	p.buttons, p.x, p.y = b, x, y
	if rec == nil {
		clear(p.downs)
		p.text = 0
		return
	}
	for _, pb := range personButtons {
		if pressed&pb.bit != 0 {
			p.flushText(rec)
			p.downs[pb.bit] = personPress{x, y, now}
		}
		d, ok := p.downs[pb.bit]
		if released&pb.bit == 0 || !ok {
			continue
		}
		delete(p.downs, pb.bit)
		a := p.act(rec, d.at, "click")
		a.X, a.Y = &d.x, &d.y
		if abs(x-d.x) > personMoved || abs(y-d.y) > personMoved {
			tx, ty := x, y
			a.Action, a.ToX, a.ToY, a.Button = "drag", &tx, &ty, pb.name
		} else {
			a.Action = pb.action
		}
		rec.queue(a)
	}
	for bit, dir := range map[uint8]string{8: "up", 16: "down", 32: "left", 64: "right"} {
		if pressed&bit != 0 {
			p.flushText(rec)
			one := 1
			a := p.act(rec, now, "click")
			a.Action, a.X, a.Y, a.Direction, a.Clicks = "scroll", &x, &y, dir, &one
			rec.queue(a)
		}
	}
}

func (p *personActs) key(sym uint32, down bool) {
	rec := p.recording()
	p.mu.Lock()
	defer p.mu.Unlock()
	name := keys.Name(sym)
	if keys.IsModifier(sym) {
		if name != "" {
			p.mods[name] = down
		}
		return
	}
	if !down || rec == nil || name == "" {
		return
	}
	var held []string
	for _, m := range []string{"ctrl", "alt", "super", "altgr", "shift"} {
		if p.mods[m] {
			held = append(held, m)
		}
	}
	if _, printable := keys.Rune(sym); printable && (len(held) == 0 || held[0] == "shift" || held[0] == "altgr") {
		if p.text == 0 {
			p.textAt = time.Now()
		}
		p.text++
		return
	}
	p.flushText(rec)
	a := p.act(rec, time.Now(), "key")
	a.Keys = strings.Join(append(held, name), "+")
	rec.queue(a)
}

// flushText writes the characters typed since the last act as one type
// act, by its length.
func (p *personActs) flushText(rec *recorder) {
	if p.text == 0 {
		return
	}
	n := p.text
	p.text = 0
	a := p.act(rec, p.textAt, "type")
	a.TextLen = &n
	rec.queue(a)
}

// end writes what is still pending when the person's session ends.
func (p *personActs) end() {
	rec := p.recording()
	p.mu.Lock()
	defer p.mu.Unlock()
	if rec != nil {
		p.flushText(rec)
	}
}

func (p *personActs) act(rec *recorder, at time.Time, op string) actRecord {
	return actRecord{T: max(0, at.Sub(rec.started).Seconds()), End: time.Since(rec.started).Seconds(),
		Op: op, Attachment: p.name, Outcome: "ok"}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
