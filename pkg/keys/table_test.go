package keys

// Table returns the fixed key-name table in documentation order.
func Table() []NamedKey {
	out := make([]NamedKey, len(table))
	for i, k := range table {
		k.Aliases = append([]string(nil), k.Aliases...)
		out[i] = k
	}
	return out
}

// Names returns every accepted key name (canonical names first, then their
// aliases, in table order). Names are matched case-insensitively; a single
// printable character is also a key name.
func Names() []string {
	var out []string
	for _, k := range table {
		out = append(out, k.Name)
		out = append(out, k.Aliases...)
	}
	return out
}

// QEMUCode converts a scan code as returned by Scancode to the keycode of
// the QEMU extended key event (RFB pseudo-encoding -258): single-byte codes
// as they are, 0xE0xx as 0x80|xx.
func QEMUCode(code uint16) uint32 {
	low, ext := SplitExtended(code)
	if ext {
		return 0x80 | uint32(low)
	}
	return uint32(low)
}

// SplitExtended splits a scan code into the low byte and whether it is an
// extended (0xE0-prefixed) key. RDP sends the low byte as keyCode and sets
// KBDFLAGS_EXTENDED when extended is true.
func SplitExtended(code uint16) (low uint8, extended bool) {
	return uint8(code), code&0xff00 == 0xe000
}
