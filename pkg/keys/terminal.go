package keys

import (
	"strconv"
	"unicode/utf8"
)

// TerminalBytes returns what an xterm-compatible terminal sends for a
// chord (as returned by ParseChord), so the key operation can drive a
// terminal limb: Enter is "\r", ctrl+c is 0x03, alt+x is ESC x, ctrl+Right
// is ESC [1;5C. appCursor selects the cursor keys of application mode
// (DECCKM set: ESC O A instead of ESC [ A). ok is false for chords a
// terminal has no bytes for (super+r, CapsLock, ctrl+1, F13 and above).
func TerminalBytes(syms []uint32, appCursor bool) (b []byte, ok bool) {
	if len(syms) == 0 {
		return nil, false
	}
	var shift, alt, ctrl bool
	for _, s := range syms[:len(syms)-1] {
		switch s {
		case XK_Shift_L, XK_Shift_R:
			shift = true
		case XK_Alt_L, XK_Alt_R, XK_Meta_L, XK_Meta_R:
			alt = true
		case XK_Control_L, XK_Control_R:
			ctrl = true
		default:
			return nil, false // super, altgr: nothing a terminal receives
		}
	}
	key := syms[len(syms)-1]
	if key == XK_ISO_Left_Tab {
		key, shift = XK_Tab, true
	}
	if IsModifier(key) {
		return nil, false
	}
	if seq, ok := specialKey(key, shift, alt, ctrl, appCursor); ok {
		return seq, true
	}
	r, ok := keysymRune(key)
	if !ok {
		return nil, false
	}
	if shift {
		r = shiftRune(r)
	}
	if ctrl {
		c, ok := controlByte(r)
		if !ok {
			return nil, false
		}
		b = []byte{c}
	} else {
		b = utf8.AppendRune(nil, r)
	}
	if alt {
		b = append([]byte{0x1b}, b...)
	}
	return b, true
}

// keysymRune is the character a keysym types, if it types one.
func keysymRune(sym uint32) (rune, bool) {
	switch {
	case sym >= 0x20 && sym <= 0x7e, sym >= 0xa0 && sym <= 0xff:
		return rune(sym), true
	case sym&0xff000000 == UnicodeKeysymBase:
		r := rune(sym &^ UnicodeKeysymBase)
		return r, utf8.ValidRune(r) && r >= 0x100
	}
	return 0, false
}

// shiftRune is the character Shift gives on a US keyboard.
func shiftRune(r rune) rune {
	if r >= 'a' && r <= 'z' {
		return r - 'a' + 'A'
	}
	const plain, shifted = "1234567890-=[]\\;',./`", "!@#$%^&*()_+{}|:\"<>?~"
	for i := 0; i < len(plain); i++ {
		if rune(plain[i]) == r {
			return rune(shifted[i])
		}
	}
	return r
}

// controlByte is the C0 byte Ctrl gives with a character.
func controlByte(r rune) (byte, bool) {
	switch {
	case r >= 'a' && r <= 'z':
		return byte(r - 'a' + 1), true
	case r >= '@' && r <= '_': // @, A..Z, [ \ ] ^ _
		return byte(r - '@'), true
	case r == ' ':
		return 0, true
	case r == '?':
		return 0x7f, true
	}
	return 0, false
}

// specialKey handles the named keys, with xterm's modifier parameter
// (1 + shift + 2·alt + 4·ctrl) on cursor, editing and function keys.
func specialKey(sym uint32, shift, alt, ctrl, appCursor bool) ([]byte, bool) {
	mod := 1
	if shift {
		mod++
	}
	if alt {
		mod += 2
	}
	if ctrl {
		mod += 4
	}
	withAlt := func(b string) ([]byte, bool) {
		if alt {
			b = "\x1b" + b
		}
		return []byte(b), true
	}
	switch sym {
	case XK_Return:
		return withAlt("\r")
	case XK_Tab:
		if shift {
			return withAlt("\x1b[Z")
		}
		return withAlt("\t")
	case XK_BackSpace:
		if ctrl {
			return withAlt("\x08")
		}
		return withAlt("\x7f")
	case XK_Escape:
		return withAlt("\x1b")
	}
	if final, ok := cursorFinal[sym]; ok {
		switch {
		case mod > 1:
			return []byte("\x1b[1;" + strconv.Itoa(mod) + string(final)), true
		case appCursor:
			return []byte("\x1bO" + string(final)), true
		default:
			return []byte("\x1b[" + string(final)), true
		}
	}
	if n, ok := tildeKeys[sym]; ok {
		if mod > 1 {
			return []byte("\x1b[" + strconv.Itoa(n) + ";" + strconv.Itoa(mod) + "~"), true
		}
		return []byte("\x1b[" + strconv.Itoa(n) + "~"), true
	}
	if sym >= XK_F1 && sym < XK_F1+4 { // F1..F4 are SS3 P..S
		final := byte('P' + sym - XK_F1)
		if mod > 1 {
			return []byte("\x1b[1;" + strconv.Itoa(mod) + string(final)), true
		}
		return []byte{0x1b, 'O', final}, true
	}
	return nil, false
}

// cursorFinal holds the final byte of CSI/SS3 cursor and Home/End keys.
var cursorFinal = map[uint32]byte{
	XK_Up: 'A', XK_Down: 'B', XK_Right: 'C', XK_Left: 'D', XK_Home: 'H', XK_End: 'F',
}

// tildeKeys holds the CSI n ~ keys.
var tildeKeys = map[uint32]int{
	XK_Insert: 2, XK_Delete: 3, XK_Page_Up: 5, XK_Page_Down: 6,
	XK_F1 + 4: 15, XK_F1 + 5: 17, XK_F1 + 6: 18, XK_F1 + 7: 19,
	XK_F1 + 8: 20, XK_F1 + 9: 21, XK_F1 + 10: 23, XK_F1 + 11: 24,
}
