package keys

import (
	"strconv"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
)

// linuxExtended maps the extended (0xE0xx) set 1 codes to Linux input key
// codes (linux/input-event-codes.h); X servers with the evdev rules use
// key code = Linux code + 8. Single-byte codes up to 0x58 equal their
// Linux code.
var linuxExtended = map[uint16]int{
	0xe01c: 96,  // KEY_KPENTER
	0xe01d: 97,  // KEY_RIGHTCTRL
	0xe035: 98,  // KEY_KPSLASH
	0xe037: 99,  // KEY_SYSRQ (Print)
	0xe038: 100, // KEY_RIGHTALT
	0xe047: 102, // KEY_HOME
	0xe048: 103, // KEY_UP
	0xe049: 104, // KEY_PAGEUP
	0xe04b: 105, // KEY_LEFT
	0xe04d: 106, // KEY_RIGHT
	0xe04f: 107, // KEY_END
	0xe050: 108, // KEY_DOWN
	0xe051: 109, // KEY_PAGEDOWN
	0xe052: 110, // KEY_INSERT
	0xe053: 111, // KEY_DELETE
	0xe05b: 125, // KEY_LEFTMETA
	0xe05c: 126, // KEY_RIGHTMETA
	0xe05d: 127, // KEY_COMPOSE (Menu)
}

// TestScancodesAgainstXKeymap checks the scan code table against the US
// keymap of a real X server: every key's X key code must carry the keysym
// we say it types, in the shifted column exactly when we say Shift.
func TestScancodesAgainstXKeymap(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "Xvfb", "xmodmap")
	d := testbed.StartXvfb(t, 320, 240)
	keymap := parseXmodmap(d.Run(t, "xmodmap", "-pk"))
	if len(keymap) < 50 || len(keymap[38]) < 2 || keymap[38][0] != 'a' || keymap[38][1] != 'A' {
		t.Fatalf("xmodmap -pk is not the US evdev keymap this test expects (%d key codes; 38 holds %#x)", len(keymap), keymap[38])
	}
	xcode := func(code uint16) (int, bool) {
		if code <= 0x58 {
			return int(code) + 8, true
		}
		n, ok := linuxExtended[code]
		return n + 8, ok
	}
	check := func(sym uint32, exactColumn bool) {
		code, shift, ok := Scancode(sym)
		if !ok {
			t.Errorf("keysym %#x has no scan code", sym)
			return
		}
		kc, known := xcode(code)
		if !known {
			return // F13 and up: no fixed Linux equivalent to compare with
		}
		syms := keymap[kc]
		col := 0
		if shift {
			col = 1
		}
		switch {
		case exactColumn && (len(syms) <= col || syms[col] != sym):
			t.Errorf("keysym %#x: scan code %#x shift %v, but X key code %d holds %#x", sym, code, shift, kc, syms)
		case !exactColumn && !containsSym(syms, sym):
			t.Errorf("keysym %#x: scan code %#x, but X key code %d holds %#x", sym, code, kc, syms)
		}
	}
	for r := uint32(0x20); r <= 0x7e; r++ {
		check(r, true)
	}
	for _, sym := range []uint32{XK_Return, XK_Escape, XK_BackSpace, XK_Tab, XK_Delete, XK_Insert,
		XK_Home, XK_End, XK_Page_Up, XK_Page_Down, XK_Up, XK_Down, XK_Left, XK_Right,
		XK_Control_L, XK_Control_R, XK_Shift_L, XK_Shift_R, XK_Alt_L, XK_Super_L, XK_Super_R,
		XK_Menu, XK_Print, XK_Caps_Lock, XK_Num_Lock, XK_Scroll_Lock,
		XK_KP_Enter, XK_KP_Divide, XK_KP_Multiply, XK_KP_Subtract, XK_KP_Add, XK_KP_Decimal,
		XK_KP_0, XK_KP_0 + 1, XK_KP_0 + 5, XK_KP_0 + 9, XK_KP_Home, XK_KP_End} {
		check(sym, false)
	}
	for n := 1; n <= 12; n++ {
		check(F(n), false)
	}
}

// parseXmodmap reads `xmodmap -pk`: key code, then "0xVALUE (name)" pairs.
func parseXmodmap(out string) map[int][]uint32 {
	m := map[int][]uint32{}
	for _, line := range strings.Split(out, "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		kc, err := strconv.Atoi(fields[0])
		if err != nil {
			continue
		}
		for _, f := range fields[1:] {
			if v, err := strconv.ParseUint(strings.TrimPrefix(f, "0x"), 16, 32); err == nil && strings.HasPrefix(f, "0x") {
				m[kc] = append(m[kc], uint32(v))
			}
		}
	}
	return m
}
