package daemon

import (
	"encoding/json"
	"image"
	"strings"
	"sync"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/rfbserver"
	"github.com/dvvhq/dvv/pkg/viewer"
	"github.com/dvvhq/dvv/pkg/wire"
)

// viewerGlue is the daemon's side of the browser viewer (pkg/viewer): it
// answers the viewer's questions from the limbs and acts as one person,
// "person in the browser viewer", when the page drives.
type viewerGlue struct {
	d      *Daemon
	person *attachment

	mu      sync.Mutex
	seats   map[*Limb]*seat // one per limb the page drove, so its lease is one hold
	changed chan struct{}   // closed and replaced at every daemon event (Changed)
}

// startViewer starts the viewer on first use; it lives as long as dvvd.
func (d *Daemon) startViewer() (*viewer.Server, error) {
	d.viewerMu.Lock()
	defer d.viewerMu.Unlock()
	if d.viewer != nil {
		return d.viewer, nil
	}
	g := &viewerGlue{d: d, person: newPerson("person in the browser viewer"), seats: map[*Limb]*seat{}, changed: make(chan struct{})}
	srv, err := viewer.Start(g, d.cfg.ViewerPort, d.log)
	if err != nil && d.cfg.ViewerPort != 0 {
		return nil, wire.Errorf(wire.Internal, "cannot start the viewer on 127.0.0.1:%d, the port dvvd's --viewer-addr names: %v; free the port or restart dvvd with another", d.cfg.ViewerPort, err)
	}
	if err != nil {
		return nil, wire.Errorf(wire.Internal, "cannot start the viewer on 127.0.0.1: %v", err)
	}
	d.viewer = srv
	// Every daemon event (a limb's state, a lease, an op) may change what
	// the page shows; rather than a stream per page, one goroutine turns
	// them into a broadcast the pages' long polls wait on (Changed).
	ch := d.events.subscribe(nil)
	go func() {
		defer d.events.unsubscribe(ch)
		for {
			select {
			case <-d.ctx.Done():
				srv.Close()
				return
			case <-ch:
				g.mu.Lock()
				close(g.changed)
				g.changed = make(chan struct{})
				g.mu.Unlock()
			}
		}
	}()
	d.log.Info("viewer listening", "addr", srv.Addr())
	return srv, nil
}

// Changed closes at the next daemon event.
func (g *viewerGlue) Changed() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.changed
}

// seat is the browser person's seat at l, made on first use. Seats of
// closed limbs are swept here rather than from close: limbs know nothing
// of the viewer.
func (g *viewerGlue) seat(l *Limb) *seat {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := g.seats[l]
	if st == nil {
		for old := range g.seats { // forget seats of closed limbs
			if old.ctx.Err() != nil {
				delete(g.seats, old)
			}
		}
		st = newSeat(l, g.person, "a person took over in the browser viewer")
		g.seats[l] = st
	}
	return st
}

func (g *viewerGlue) limb(id string) *Limb {
	g.d.mu.Lock()
	defer g.d.mu.Unlock()
	return g.d.limbs[id]
}

func (g *viewerGlue) Limbs() []viewer.Limb {
	all := g.d.allLimbs()
	out := make([]viewer.Limb, 0, len(all))
	for _, l := range all {
		out = append(out, g.describe(l))
	}
	sortLimbs(out)
	return out
}

func sortLimbs(ls []viewer.Limb) {
	for i := 1; i < len(ls); i++ {
		for j := i; j > 0 && ls[j].ID < ls[j-1].ID; j-- {
			ls[j], ls[j-1] = ls[j-1], ls[j]
		}
	}
}

func (g *viewerGlue) Limb(id string) (viewer.Limb, bool) {
	l := g.limb(id)
	if l == nil {
		return viewer.Limb{}, false
	}
	return g.describe(l), true
}

func (g *viewerGlue) describe(l *Limb) viewer.Limb {
	o := l.observe(g.person)
	v := viewer.Limb{ID: l.id, Protocol: o.Protocol, Address: o.Address, Port: o.Port, Kind: l.kind, State: o.State,
		Lease: viewer.Lease{Holder: o.Lease.Holder, SinceMs: o.Lease.SinceMs, Reason: o.Lease.Reason, Human: o.Lease.HumanTookOver, Mine: o.Lease.Held}}
	l.mu.Lock()
	v.Paused, v.PausedAll = l.pausedLocked(), g.d.pausedAll.Load()
	// While paused, the agents' view says a person holds the limb; the
	// page offers Hand back only when one really does, with their reason.
	if v.Paused && l.lease.holder != nil {
		v.Lease.Human, v.Lease.Reason = l.lease.human, l.lease.reason
	}
	l.mu.Unlock()
	if l.dsk != nil {
		v.Width, v.Height = l.dsk.buf.Size()
	}
	if term, err := l.liveTerminal(); err == nil {
		v.Cols, v.Rows = term.Size()
		rows, _, _ := term.Grid()
		for len(rows) > 0 && strings.TrimSpace(rows[len(rows)-1]) == "" {
			rows = rows[:len(rows)-1]
		}
		v.Preview = rows[max(0, len(rows)-16):]
	}
	return v
}

func (g *viewerGlue) Thumbnail(id string, maxW int) ([]byte, error) {
	l := g.limb(id)
	if l == nil || l.dsk == nil {
		return nil, wire.Errorf(wire.LimbGone, "no desktop limb %q", id)
	}
	w, h := l.dsk.buf.Size()
	if w == 0 || h == 0 {
		return nil, wire.Errorf(wire.NotReady, "limb %s has no picture yet", id)
	}
	scale := min(1, float64(maxW)/float64(w))
	b, _, _, err := l.encode(image.Rect(0, 0, w, h), scale, "jpeg")
	return b, err
}

// browserInput is one browser desktop session's input.
type browserInput struct{ *seatInput }

func (b browserInput) End() { b.finish("handed back: the person closed the browser view") }

// CursorShape is the limb's live pointer shape (see pkg/viewer's desktop).
func (b browserInput) CursorShape() *rfbserver.Cursor { return b.st.l.dsk.cursorShape() }

func (g *viewerGlue) Desktop(id string) (*fb.Buffer, viewer.DesktopInput, error) {
	l := g.limb(id)
	if l == nil || l.dsk == nil {
		return nil, nil, wire.Errorf(wire.LimbGone, "no desktop limb %q", id)
	}
	return l.dsk.buf, browserInput{g.seat(l).session()}, nil
}

// browserSession is one page's hold on a limb: its first input (or Take
// over) counts it among the seat's drivers and takes the limb over; End,
// when the page goes, hands the limb back if no other page still drives.
// The same rule as a desktop's RFB session (seatInput), for every kind.
type browserSession struct {
	mu sync.Mutex // Take over comes from HTTP requests, End from the socket's handler
	in *seatInput
}

func (g *viewerGlue) session(l *Limb) *browserSession {
	return &browserSession{in: g.seat(l).session()}
}

// TakeOver makes the page's person hold the limb, as a driver.
func (b *browserSession) TakeOver() {
	st := b.in.st
	b.mu.Lock()
	if !b.in.drove {
		b.in.drove = true
		st.mu.Lock()
		st.drivers++
		st.mu.Unlock()
	}
	b.mu.Unlock()
	st.l.mu.Lock()
	held := st.l.lease.holder == st.person
	st.l.mu.Unlock()
	if !held {
		st.takeover()
	}
}

func (b *browserSession) End() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.in.finish("handed back: the person closed the browser view")
	b.in.drove = false
}

func (g *viewerGlue) Session(id string) (viewer.Session, error) {
	l := g.limb(id)
	if l == nil {
		return nil, wire.Errorf(wire.LimbGone, "no limb %q", id)
	}
	return g.session(l), nil
}

// browserTerminal is a terminal limb's stream for one page, which types
// as the browser's person.
type browserTerminal struct {
	*browserSession
	l *Limb
}

func (t browserTerminal) Read(since uint64, max int) ([]byte, uint64, int64, error) {
	term, err := t.l.liveTerminal()
	if err != nil {
		return nil, since, 0, err
	}
	return term.Read(since, max)
}

func (t browserTerminal) Changed() <-chan struct{} {
	term, err := t.l.liveTerminal()
	if err != nil {
		// Between sessions there is no output to wait for; the limb's
		// closing still wakes the page, and a reconnect shows through
		// the glue's Changed.
		return t.l.ctx.Done()
	}
	return term.Changed()
}

func (t browserTerminal) Size() (int, int) {
	term, err := t.l.liveTerminal()
	if err != nil {
		return 80, 24 // a placeholder grid until a session is back
	}
	return term.Size()
}

// Send types as the person in the browser: typing into the page is taking
// control, so the page takes the lease over first (the agent hears
// LEASE_REVOKED), as any input from a shared VNC viewer does (seat).
func (t browserTerminal) Send(b []byte) error {
	t.TakeOver()
	term, err := t.l.liveTerminal()
	if err != nil {
		return err
	}
	return term.Send(b)
}

func (g *viewerGlue) Terminal(id string) (viewer.Terminal, error) {
	l := g.limb(id)
	if l == nil || l.tty == nil {
		return nil, wire.Errorf(wire.LimbGone, "no terminal limb %q", id)
	}
	return browserTerminal{browserSession: g.session(l), l: l}, nil
}

func (g *viewerGlue) Control(id, action string) error {
	switch action {
	case "pause", "resume":
		_, err := opPause(&opCall{d: g.d, att: g.person, ctx: g.d.ctx},
			wire.PauseArgs{Action: action, Target: wire.Target{LimbID: id}, All: id == "" && action == "pause"})
		return err
	}
	l := g.limb(id)
	if l == nil {
		return wire.Errorf(wire.LimbGone, "no limb %q", id)
	}
	switch action {
	case "takeover":
		g.seat(l).takeover()
	case "handback":
		_, err := opHandback(&opCall{d: g.d, att: g.person, ctx: g.d.ctx, l: l}, wire.HandbackArgs{Target: wire.Target{LimbID: id}})
		return err
	}
	return nil
}

func (g *viewerGlue) Acts(id string, since uint64) ([]json.RawMessage, uint64) {
	l := g.limb(id)
	if l == nil {
		return nil, since
	}
	acts := l.actLog.since(since)
	l.actLog.mu.Lock()
	next := l.actLog.n
	l.actLog.mu.Unlock()
	out := make([]json.RawMessage, len(acts))
	for i, a := range acts {
		out[i], _ = json.Marshal(a)
	}
	return out, next
}

var _ = register(wire.OpViewer, typed(opViewer))

// opViewer starts the viewer if needed and answers its address with the
// secret (full, or the read-only one for action watch).
func opViewer(c *opCall, a wire.ViewerArgs) (*wire.ViewerAnswer, error) {
	srv, err := c.d.startViewer()
	if err != nil {
		return nil, err
	}
	r := &wire.ViewerAnswer{}
	readOnly := a.Action == "watch"
	r.Viewer = &wire.ViewerInfo{URL: srv.URL(readOnly, a.LimbID), ReadOnly: readOnly}
	r.Dispatched = "the viewer listens on " + srv.Addr()
	return r, nil
}

// RecordingsDir lets the browser viewer list and play the recordings
// (pkg/viewer, recordings page).
func (g *viewerGlue) RecordingsDir() (string, error) { return recordingsDir() }
