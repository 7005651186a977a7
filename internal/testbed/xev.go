package testbed

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// KeyPress is one key press as the X server delivered it to a window.
type KeyPress struct {
	State  uint32 // modifier mask at the press (ShiftMask 0x1, ControlMask 0x4, Mod1Mask 0x8)
	Keysym uint32
	Name   string // the keysym's name, e.g. "A", "exclam", "ISO_Left_Tab"
}

// X modifier masks as xev prints them.
const (
	ShiftMask   = 0x1
	ControlMask = 0x4
	Mod1Mask    = 0x8 // Alt on a default keymap
)

// KeyWatch is an xev window, focused, reporting the key presses it gets.
type KeyWatch struct {
	out string
}

// WatchKeys starts `xev -event keyboard` (line-buffered) at the top left of
// the display, gives it the focus and returns a reader of its key presses.
func (d *Display) WatchKeys(t testing.TB) *KeyWatch {
	t.Helper()
	Need(t, "xev", "xdotool", "stdbuf")
	cmd := d.Command("stdbuf", "-oL", "xev", "-event", "keyboard", "-geometry", "400x300+0+0")
	k := &KeyWatch{out: Start(t, "xev", cmd).Log}
	Eventually(t, 10*time.Second, "xev window focused", func() bool {
		o, err := d.Command("xdotool", "search", "--name", "Event Tester").Output()
		if err != nil || len(strings.Fields(string(o))) == 0 {
			return false
		}
		w := strings.Fields(string(o))[0]
		if d.Command("xdotool", "windowfocus", "--sync", w).Run() != nil {
			return false
		}
		fo, err := d.Command("xdotool", "getwindowfocus").Output()
		return err == nil && strings.TrimSpace(string(fo)) == w
	})
	return k
}

var xevPress = regexp.MustCompile(`(?s)KeyPress event,.*?state 0x([0-9a-f]+), keycode \d+ \(keysym 0x([0-9a-f]+), ([^)]*)\)`)

// Presses returns every key press seen so far, in order.
func (k *KeyWatch) Presses() []KeyPress {
	b, _ := os.ReadFile(k.out)
	var out []KeyPress
	for _, m := range xevPress.FindAllStringSubmatch(string(b), -1) {
		st, _ := strconv.ParseUint(m[1], 16, 32)
		sym, _ := strconv.ParseUint(m[2], 16, 32)
		out = append(out, KeyPress{State: uint32(st), Keysym: uint32(sym), Name: m[3]})
	}
	return out
}
