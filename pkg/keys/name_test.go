package keys

import (
	"slices"
	"testing"
)

// TestNameParsesBack: every key the table names and every character a
// keysym types are named so that ParseChord presses the same keysym.
func TestNameParsesBack(t *testing.T) {
	syms := []uint32{'a', 'Z', '5', ' ', '+', '-', 0xe9, UnicodeKeysymBase | 0x20ac}
	for _, k := range table {
		syms = append(syms, k.Sym)
	}
	for _, sym := range syms {
		n := Name(sym)
		got, err := ParseChord(n)
		if err != nil || !slices.Contains(got, sym) {
			t.Errorf("Name(%#x) = %q, which ParseChord reads as %#x, %v", sym, n, got, err)
		}
	}
	if Name(XK_Control_R) != "ctrl" || Name(XK_Shift_R) != "shift" {
		t.Errorf("right-hand modifiers: %q %q", Name(XK_Control_R), Name(XK_Shift_R))
	}
	if Name(0x1b) != "" || Name(0xfe03) != "altgr" && Name(0xfe03) != "" {
		t.Errorf("a control keysym is named %q", Name(0x1b))
	}
}
