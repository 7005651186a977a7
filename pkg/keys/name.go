package keys

import "unicode"

// Name is how a chord names keysym sym: the key table's name (a right-hand
// modifier by the one name of its kind), else the printable character it
// types; "" for a keysym with neither. ParseChord(Name(sym)) presses sym's
// key again, so a recorded key can be written as a step.
func Name(sym uint32) string {
	switch sym {
	case XK_Control_R:
		sym = XK_Control_L
	case XK_Shift_R:
		sym = XK_Shift_L
	case XK_Alt_R, XK_Meta_L, XK_Meta_R:
		sym = XK_Alt_L
	case XK_Super_R:
		sym = XK_Super_L
	}
	for _, k := range table {
		if k.Sym == sym {
			return k.Name
		}
	}
	if r, ok := Rune(sym); ok {
		return string(r)
	}
	return ""
}

// Rune is the printable character keysym sym types, if it types one: the
// Latin-1 keysyms and Unicode keysyms (space included, controls not).
func Rune(sym uint32) (rune, bool) {
	var r rune
	switch {
	case sym >= 0x20 && sym <= 0x7e, sym >= 0xa0 && sym <= 0xff:
		r = rune(sym)
	case sym&0xff000000 == UnicodeKeysymBase:
		r = rune(sym &^ UnicodeKeysymBase)
	default:
		return 0, false
	}
	return r, unicode.IsPrint(r)
}
