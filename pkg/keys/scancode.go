package keys

// Scan codes here are PC/XT scan code set 1 make codes. A code of the form
// 0xE0xx is an "extended" key: its make sequence is the byte 0xE0 followed
// by xx. Single-byte codes are below 0x80.

// usMain maps printable ASCII to (unshifted key) scan codes on a US layout.
// Shifted symbols share the code of the key they are on.
var usMain = map[byte]uint16{
	'1': 0x02, '2': 0x03, '3': 0x04, '4': 0x05, '5': 0x06,
	'6': 0x07, '7': 0x08, '8': 0x09, '9': 0x0a, '0': 0x0b,
	'-': 0x0c, '=': 0x0d,
	'q': 0x10, 'w': 0x11, 'e': 0x12, 'r': 0x13, 't': 0x14,
	'y': 0x15, 'u': 0x16, 'i': 0x17, 'o': 0x18, 'p': 0x19,
	'[': 0x1a, ']': 0x1b,
	'a': 0x1e, 's': 0x1f, 'd': 0x20, 'f': 0x21, 'g': 0x22,
	'h': 0x23, 'j': 0x24, 'k': 0x25, 'l': 0x26,
	';': 0x27, '\'': 0x28, '`': 0x29, '\\': 0x2b,
	'z': 0x2c, 'x': 0x2d, 'c': 0x2e, 'v': 0x2f, 'b': 0x30,
	'n': 0x31, 'm': 0x32, ',': 0x33, '.': 0x34, '/': 0x35,
	' ': 0x39,

	// Shifted symbols.
	'!': 0x02, '@': 0x03, '#': 0x04, '$': 0x05, '%': 0x06,
	'^': 0x07, '&': 0x08, '*': 0x09, '(': 0x0a, ')': 0x0b,
	'_': 0x0c, '+': 0x0d, '{': 0x1a, '}': 0x1b,
	':': 0x27, '"': 0x28, '~': 0x29, '|': 0x2b,
	'<': 0x33, '>': 0x34, '?': 0x35,
}

// namedScan maps keysyms of named keys to scan codes.
var namedScan = map[uint32]uint16{
	XK_Escape:       0x01,
	XK_BackSpace:    0x0e,
	XK_Tab:          0x0f,
	XK_ISO_Left_Tab: 0x0f, // Tab with Shift
	XK_Return:       0x1c,
	XK_Control_L:    0x1d,
	XK_Shift_L:      0x2a,
	XK_Shift_R:      0x36,
	XK_Alt_L:        0x38,
	XK_Meta_L:       0xe05b, // Meta is the Windows/Command key on PC keyboards
	XK_Meta_R:       0xe05c,
	XK_Caps_Lock:    0x3a,
	XK_Num_Lock:     0x45,
	XK_Scroll_Lock:  0x46,
	XK_Sys_Req:      0x54,

	XK_KP_Multiply:  0x37,
	XK_KP_Subtract:  0x4a,
	XK_KP_Add:       0x4e,
	XK_KP_Decimal:   0x53,
	XK_KP_Delete:    0x53,
	XK_KP_Home:      0x47,
	XK_KP_Up:        0x48,
	XK_KP_Page_Up:   0x49,
	XK_KP_Left:      0x4b,
	XK_KP_Begin:     0x4c,
	XK_KP_Right:     0x4d,
	XK_KP_End:       0x4f,
	XK_KP_Down:      0x50,
	XK_KP_Page_Down: 0x51,
	XK_KP_Insert:    0x52,
	XK_KP_0 + 7:     0x47,
	XK_KP_0 + 8:     0x48,
	XK_KP_0 + 9:     0x49,
	XK_KP_0 + 4:     0x4b,
	XK_KP_0 + 5:     0x4c,
	XK_KP_0 + 6:     0x4d,
	XK_KP_0 + 1:     0x4f,
	XK_KP_0 + 2:     0x50,
	XK_KP_0 + 3:     0x51,
	XK_KP_0:         0x52,

	// Extended keys.
	XK_KP_Enter:         0xe01c,
	XK_Control_R:        0xe01d,
	XK_KP_Divide:        0xe035,
	XK_Print:            0xe037,
	XK_Alt_R:            0xe038,
	XK_ISO_Level3_Shift: 0xe038, // AltGr is the right Alt key
	XK_Mode_switch:      0xe038,
	XK_Pause:            0xe046, // see Scancode
	XK_Home:             0xe047,
	XK_Up:               0xe048,
	XK_Page_Up:          0xe049,
	XK_Left:             0xe04b,
	XK_Right:            0xe04d,
	XK_End:              0xe04f,
	XK_Down:             0xe050,
	XK_Page_Down:        0xe051,
	XK_Insert:           0xe052,
	XK_Delete:           0xe053,
	XK_Super_L:          0xe05b,
	XK_Super_R:          0xe05c,
	XK_Menu:             0xe05d,
}

// fnScan holds F1..F24. F1–F10 and F11–F12 are the classic codes; F13–F24
// follow the codes PC keyboards with those keys send (0x64–0x6e, 0x76).
var fnScan = [24]uint16{
	0x3b, 0x3c, 0x3d, 0x3e, 0x3f, 0x40, 0x41, 0x42, 0x43, 0x44,
	0x57, 0x58,
	0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x6b, 0x6c, 0x6d, 0x6e, 0x76,
}

// Scancode returns the set 1 scan code of the key that types sym on a US
// keyboard, and whether Shift must be held for it (uppercase letters and
// shifted symbols). ok is false when no US key produces sym (Latin-1
// letters, other Unicode, F25 and above).
//
// Extended keys come back as 0xE0xx (Right arrow 0xE04D, Delete 0xE053,
// Super_L 0xE05B): the low byte with the E0 prefix on the wire.
// Pause has a multi-byte make sequence (E1 1D 45) that fits no single code;
// it is given as 0xE046 (Ctrl+Break), which QEMU accepts as its Pause key.
func Scancode(sym uint32) (code uint16, shift bool, ok bool) {
	if sym >= 0x20 && sym <= 0x7e {
		c := byte(sym)
		if c >= 'A' && c <= 'Z' {
			return usMain[c+('a'-'A')], true, true
		}
		code, ok := usMain[c]
		return code, ok && needsShiftASCII(c), ok
	}
	if sym >= XK_F1 && sym <= XK_F24 {
		return fnScan[sym-XK_F1], false, true
	}
	code, ok = namedScan[sym]
	return code, false, ok
}
