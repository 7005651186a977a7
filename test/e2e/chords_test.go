package e2e

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// chordCase is a chord and what the X server must deliver for its main key:
// the keysym name and the modifier mask held at the press.
type chordCase struct {
	chord string
	name  string
	state uint32
}

const (
	shiftM = testbed.ShiftMask
	ctrlM  = testbed.ControlMask
	altM   = testbed.Mod1Mask
)

// chordTable covers shift with letters, digits, punctuation and named keys,
// with and without other modifiers, and chords without shift that must not
// gain one.
var chordTable = []chordCase{
	{"shift+a", "A", shiftM},
	{"ctrl+shift+c", "C", shiftM | ctrlM},
	{"shift+1", "exclam", shiftM},
	{"shift+/", "question", shiftM},
	{"ctrl+c", "c", ctrlM},
	{"ctrl+C", "c", ctrlM},
	{"A", "A", shiftM},
	{"alt+shift+x", "X", shiftM | altM},
	{"shift+Tab", "ISO_Left_Tab", shiftM},
	{"shift+Left", "Left", shiftM},
	{"ctrl+shift+End", "End", shiftM | ctrlM},
	{"shift+F5", "F5", shiftM},
	{"shift+Enter", "Return", shiftM},
	{"shift+Space", "space", shiftM},
	{"ctrl+alt+Delete", "Delete", ctrlM | altM},
	{"shift+=", "plus", shiftM},
	{"shift+[", "braceleft", shiftM},
	{"shift+;", "colon", shiftM},
	{"shift+'", "quotedbl", shiftM},
	{"shift+`", "asciitilde", shiftM},
}

// mods is the part of an X state mask the table speaks about.
func mods(state uint32) uint32 { return state & (shiftM | ctrlM | altM) }

// TestChordsReachTheApplication sends every chord of the table through the
// key op and reads, from the X server's side (xev), the keysym and the
// modifiers the application saw.
func TestChordsReachTheApplication(t *testing.T) {
	for _, server := range []string{"Xvnc", "x11vnc"} {
		t.Run(server, func(t *testing.T) {
			t.Parallel()
			var v *testbed.VNC
			if server == "Xvnc" {
				v = testbed.StartXvnc(t, testbed.XvncOptions{Width: 800, Height: 600})
			} else {
				v = testbed.StartX11vnc(t, 800, 600)
			}
			d := startDaemon(t)
			c := dial(t, d, "agent")
			id := openVNC(t, c, "127.0.0.1", v.Port)
			must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
			w := v.WatchKeys(t)
			for _, tc := range chordTable {
				if server == "x11vnc" && tc.chord == "shift+F5" {
					// x11vnc (in its XKB mode, automatic on this keymap)
					// takes the first level that types a keysym; F5 is on
					// levels 1 and 2 of its key, so it releases Shift for
					// level 1 whatever the client holds. docs/keys.md says so.
					continue
				}
				checkChord(t, c, id, w, tc)
			}
		})
	}
}

// TestChordsOnQEMUByScancode checks the same chords on QEMU, whose input
// layer records the keys (by scan code) that reach its virtual keyboard.
func TestChordsOnQEMUByScancode(t *testing.T) {
	q := testbed.StartQEMUVNC(t, "", true)
	d := startDaemon(t)
	c := dial(t, d, "agent")
	port := q.Port
	r := must(t, c, wire.OpenArgs{Address: "127.0.0.1", Port: &port, Protocol: "vnc", Perceive: boolp(true)})
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: intp(20000)})
	testbed.Eventually(t, 20*time.Second, "QEMU key events negotiated", func() bool {
		s := must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: r.LimbID}}).Observation.Signals
		return s[wire.SigKeyScancodes].State == wire.SignalLive
	})
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: r.LimbID}, Action: "acquire"})
	cases := []struct {
		chord string
		held  []string // keys down when the main key goes down, main key last
	}{
		{"shift+a", []string{"shift", "a"}},
		{"ctrl+shift+c", []string{"ctrl", "shift", "c"}},
		{"shift+1", []string{"shift", "1"}},
		{"ctrl+c", []string{"ctrl", "c"}},
		{"A", []string{"shift", "a"}},
		{"shift+Tab", []string{"shift", "tab"}},
		{"ctrl+alt+Delete", []string{"ctrl", "alt", "delete"}},
	}
	for _, tc := range cases {
		before := len(q.KeyEvents())
		sendKey(t, c, r.LimbID, tc.chord)
		var ev []testbed.QKey
		testbed.Eventually(t, 10*time.Second, tc.chord+" traced", func() bool {
			ev = q.KeyEvents()[before:]
			return len(ev) >= 2*len(tc.held)
		})
		held := map[string]bool{}
		var atMain []string
		for _, e := range ev {
			held[e.QCode] = e.Down
			if e.Down && e.QCode == tc.held[len(tc.held)-1] && atMain == nil {
				for k, down := range held {
					if down {
						atMain = append(atMain, k)
					}
				}
			}
		}
		slices.Sort(atMain)
		want := slices.Clone(tc.held)
		slices.Sort(want)
		if !slices.Equal(atMain, want) {
			t.Errorf("%s: QEMU had %v down at the main key, want %v (events %v)", tc.chord, atMain, want, ev)
		}
		for k, down := range held {
			if down {
				t.Errorf("%s: %s left down", tc.chord, k)
			}
		}
	}
}

// TestQEMUTypeChecksTheWholeTextFirst: QEMU drops keysyms that have no
// key, so a text holding one is refused before any key is sent.
func TestQEMUTypeChecksTheWholeTextFirst(t *testing.T) {
	q := testbed.StartQEMUVNC(t, "", true)
	d := startDaemon(t)
	c := dial(t, d, "agent")
	port := q.Port
	r := must(t, c, wire.OpenArgs{Address: "127.0.0.1", Port: &port, Protocol: "vnc", Perceive: boolp(true)})
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: intp(20000)})
	testbed.Eventually(t, 20*time.Second, "QEMU key events negotiated", func() bool {
		s := must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: r.LimbID}}).Observation.Signals
		return s[wire.SigKeyScancodes].State == wire.SignalLive
	})
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: r.LimbID}, Action: "acquire"})
	testbed.Eventually(t, 20*time.Second, "a full frame", func() bool {
		return must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: r.LimbID}}).Observation.Coverage == 1
	})
	// The firmware may still switch video modes; a resize trips the fence,
	// and the agent reads the screen again, as the answer tells it to.
	typeText := func(text string) error {
		_, err := doAfterRead(t, c, r.LimbID, wire.TypeArgs{Target: wire.Target{LimbID: r.LimbID}, Text: strp(text)})
		return err
	}
	if err := typeText("héllo"); client.Code(err) != wire.NotImplemented {
		t.Fatalf("type with é on QEMU: %v", err)
	}
	if err := typeText("ok"); err != nil {
		t.Fatalf("type ok on QEMU: %v", err)
	}
	testbed.Eventually(t, 10*time.Second, "o and k traced", func() bool { return len(q.KeyEvents()) >= 4 })
	if ev := q.KeyEvents(); ev[0].QCode != "o" {
		t.Fatalf("QEMU received %v before the refused text's successor", ev)
	}
}

func isModifierName(n string) bool {
	switch n {
	case "Shift_L", "Shift_R", "Control_L", "Control_R", "Alt_L", "Alt_R", "Meta_L", "Meta_R", "Super_L", "Super_R", "ISO_Level3_Shift":
		return true
	}
	return false
}

// checkChord sends one chord and checks what the application saw (xev):
// the main key is the last non-modifier press, with the chord's modifiers.
func checkChord(t *testing.T, c *client.Client, id string, w *testbed.KeyWatch, tc chordCase) {
	t.Helper()
	before := len(w.Presses())
	sendKey(t, c, id, tc.chord)
	var got testbed.KeyPress
	testbed.Eventually(t, 10*time.Second, tc.chord+" delivered", func() bool {
		p := w.Presses()
		for i := len(p) - 1; i >= before; i-- {
			if !isModifierName(p[i].Name) {
				got = p[i]
				return true
			}
		}
		return false
	})
	if got.Name != tc.name || mods(got.State) != tc.state {
		t.Errorf("%s: the application saw %s with modifiers 0x%x, want %s with 0x%x", tc.chord, got.Name, mods(got.State), tc.name, tc.state)
	}
}

// sendKey sends a chord, reading the screen first when a new window armed
// the typing fence, as an agent would. The window may still be painting
// when the screen is read (the fence then trips again), so it reads and
// tries again until a deadline.
func sendKey(t *testing.T, c *client.Client, id, chord string) {
	t.Helper()
	if _, err := doAfterRead(t, c, id, wire.KeyArgs{Target: wire.Target{LimbID: id}, Keys: chord}); err != nil {
		t.Fatal(fmt.Errorf("key %s: %w", chord, err))
	}
}

// TestChordsOnRDP sends the chord table through RDP scan codes (FreeRDP's
// shadow server) and reads what the application saw with xev.
func TestChordsOnRDP(t *testing.T) {
	srv := testbed.StartShadow(t, testbed.ShadowOptions{Width: 800, Height: 600})
	c, id := openShadow(t, srv)
	w := srv.WatchKeys(t)
	for _, tc := range chordTable {
		checkChord(t, c, id, w, tc)
	}
	// A chord whose key has no scan code cannot carry its modifiers (a
	// Unicode event has none): refused before any key goes down.
	before := len(w.Presses())
	if _, err := do(t, c, wire.KeyArgs{Target: wire.Target{LimbID: id}, Keys: "ctrl+é"}); client.Code(err) != wire.UnknownKey {
		t.Fatalf("ctrl+é over RDP: %v", err)
	}
	sendKey(t, c, id, "z")
	testbed.Eventually(t, 10*time.Second, "z delivered", func() bool { return len(w.Presses()) > before })
	if p := w.Presses()[before]; p.Name != "z" {
		t.Fatalf("the refused chord reached the application: %+v", w.Presses()[before:])
	}
}
