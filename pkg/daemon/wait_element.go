package daemon

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/dvvhq/dvv/pkg/atspi"
	"github.com/dvvhq/dvv/pkg/wire"
)

// An element wait reads the tree again at every accessibility event
// (atspi.Watch) and, for a change no event announced (a program that
// learned of the registration late, a toolkit that emits fewer events),
// every elementSlowPoll. Where the registry refuses the events it reads
// every elementPoll instead.
const (
	elementSlowPoll = time.Second
	elementPoll     = 150 * time.Millisecond
)

// elementWait sets opWait's condition and wake-up for the accessibility
// waits: an element there or gone (a search as inspect's), an element's
// text equal to or holding a text. found is filled with what settled it;
// done ends what the wait holds.
func elementWait(c *opCall, a wire.WaitArgs, cond *func() (bool, string, error), changed *func() <-chan struct{}) (found *[]wire.Element, done func(), err error) {
	found = new([]wire.Element)
	cl, err := c.a11y()
	if err != nil {
		return nil, nil, err
	}
	switch a.Until {
	case "element", "element-gone":
		filter := atspi.Filter{Role: a.Role, Name: a.NameContains, States: a.States}
		*cond = func() (bool, string, error) {
			if err := c.l.mustBeConnected(); err != nil {
				return false, "", err
			}
			els, err := searchElements(c, cl, a.Window, filter)
			if err != nil {
				return false, "", err
			}
			if (len(els) > 0) == (a.Until == "element") {
				*found = els
				if a.Until == "element" {
					return true, fmt.Sprintf("%d element(s) found", len(els)), nil
				}
				return true, "no such element", nil
			}
			return false, "", nil
		}
	case "text-equals", "text-contains":
		id, err := atspi.ParseID(a.Element)
		if err != nil {
			return nil, nil, &wire.Error{Code: wire.BadRequest, Message: fmt.Sprintf("element %.80q is not an element id", a.Element), Next: "take an element id from inspect (dvv inspect LIMB …)"}
		}
		n, err := cl.Resolve(c.ctx, id, c.l.generation())
		if err != nil {
			return nil, nil, elementError(err, a.Element)
		}
		if n.Protected {
			return nil, nil, elementError(atspi.ErrProtected, a.Element)
		}
		want := *a.Text
		*cond = func() (bool, string, error) {
			if err := c.l.mustBeConnected(); err != nil {
				return false, "", err
			}
			r, err := cl.Read(c.ctx, n)
			if err != nil {
				return false, "", elementError(err, a.Element)
			}
			if (a.Until == "text-equals" && r.Text == want) || (a.Until == "text-contains" && strings.Contains(r.Text, want)) {
				now := n
				now.Text = r.Text
				*found = []wire.Element{wireElement([]atspi.Node{{Ref: atspi.Ref{Bus: id.Bus, Path: id.Window}}, now}, 1, id.Gen)}
				(*found)[0].ID = a.Element
				return true, "the element's text " + map[bool]string{true: "equals", false: "holds"}[a.Until == "text-equals"] + " the text", nil
			}
			return false, "", nil
		}
	}
	*changed, *cond, done = elementWake(c, cl, *cond)
	return found, done, nil
}

// elementWake answers when an element wait reads the tree again (changed)
// and check paced (cond): at the next accessibility event or the slow poll,
// or every elementPoll where the events cannot be had; stop drops the
// wait's event registration (the limb keeps the connection). After an
// event the next check waits until the bus has been left alone as long as
// the last check took, so a program that emits events without pause (a
// clock, a log view) does not have its tree walked back to back.
func elementWake(c *opCall, cl *atspi.Client, check func() (bool, string, error)) (changed func() <-chan struct{}, cond func() (bool, string, error), stop func()) {
	next, stop, err := cl.Watch(c.ctx)
	if err != nil {
		return func() <-chan struct{} {
			ch := make(chan struct{})
			time.AfterFunc(elementPoll, func() { close(ch) })
			return ch
		}, check, func() {}
	}
	var (
		mu   sync.Mutex
		idle = closedSignal() // closed while no check runs
		rest time.Time        // no check before this
	)
	cond = func() (bool, string, error) {
		mu.Lock()
		idle = make(chan struct{})
		mu.Unlock()
		t0 := time.Now()
		ok, detail, err := check()
		mu.Lock()
		rest = time.Now().Add(time.Since(t0))
		close(idle)
		mu.Unlock()
		return ok, detail, err
	}
	changed = func() <-chan struct{} {
		ev, ch := next(), make(chan struct{})
		go func() {
			defer close(ch)
			t := time.NewTimer(elementSlowPoll)
			defer t.Stop()
			select {
			case <-ev:
			case <-t.C:
				return
			case <-c.ctx.Done():
				return
			}
			mu.Lock()
			running := idle
			mu.Unlock()
			select {
			case <-running:
			case <-c.ctx.Done():
				return
			}
			mu.Lock()
			wait := time.Until(rest)
			mu.Unlock()
			if wait > 0 {
				t.Reset(wait)
				select {
				case <-t.C:
				case <-c.ctx.Done():
				}
			}
		}()
		return ch
	}
	return changed, cond, stop
}

func closedSignal() chan struct{} { ch := make(chan struct{}); close(ch); return ch }

// searchElements is inspect's search: the elements of the windows sel
// names (every showing window when empty) that pass filter.
func searchElements(c *opCall, cl *atspi.Client, sel string, filter atspi.Filter) ([]wire.Element, error) {
	want, err := windowSelector(c, sel)
	if err != nil {
		return nil, err
	}
	gen := c.l.generation()
	wins, err := cl.Windows(c.ctx)
	if err != nil {
		return nil, elementError(err, "")
	}
	var out []wire.Element
	for _, w := range wins {
		if !want(w) {
			continue
		}
		nodes, _, err := cl.WalkRole(c.ctx, w.Ref, filter.Role)
		if err != nil {
			continue
		}
		for i := range nodes {
			if filter.Match(&nodes[i]) {
				out = append(out, wireElement(nodes, i, gen))
			}
		}
	}
	return out, nil
}
