package keys

import "unicode/utf8"

// shiftedASCII holds the printable ASCII symbols a US keyboard types with Shift.
const shiftedASCII = `!@#$%^&*()_+{}|:"<>?~`

// RuneKeysym returns the keysym that types r, and whether a US keyboard needs
// Shift held for it (scan-code protocols need to know; RFB servers mostly
// derive it from the keysym).
//
// Printable ASCII and Latin-1 (U+00A0..U+00FF) map to the keysym equal to
// the code point. '\n' and '\r' become Return, '\t' Tab, '\b' BackSpace and
// ESC Escape. Other control characters (and invalid runes) give (0, false).
// Every other character becomes a Unicode keysym (0x01000000 | r).
func RuneKeysym(r rune) (sym uint32, shift bool) {
	switch {
	case r == '\n' || r == '\r':
		return XK_Return, false
	case r == '\t':
		return XK_Tab, false
	case r == '\b':
		return XK_BackSpace, false
	case r == 0x1b:
		return XK_Escape, false
	case r >= 0x20 && r <= 0x7e:
		return uint32(r), needsShiftASCII(byte(r))
	case r >= 0xa0 && r <= 0xff:
		// Latin-1 capitals À..Þ, except the multiplication sign ×.
		return uint32(r), r >= 0xc0 && r <= 0xde && r != 0xd7
	case r < 0xa0: // C0, DEL and C1 controls
		return 0, false
	case !utf8.ValidRune(r):
		return 0, false
	}
	return UnicodeKeysymBase | uint32(r), false
}

func needsShiftASCII(c byte) bool {
	if c >= 'A' && c <= 'Z' {
		return true
	}
	for i := 0; i < len(shiftedASCII); i++ {
		if shiftedASCII[i] == c {
			return true
		}
	}
	return false
}
