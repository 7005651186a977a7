package keys

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRuneKeysym(t *testing.T) {
	tests := []struct {
		r     rune
		sym   uint32
		shift bool
	}{
		{'a', 'a', false},
		{'z', 'z', false},
		{'A', 'A', true},
		{'Z', 'Z', true},
		{'0', '0', false},
		{' ', XK_space, false},
		{'!', '!', true},
		{'@', '@', true},
		{'~', '~', true},
		{'`', '`', false},
		{'-', '-', false},
		{'_', '_', true},
		{'=', '=', false},
		{'+', '+', true},
		{'[', '[', false},
		{'{', '{', true},
		{'|', '|', true},
		{'\\', '\\', false},
		{'"', '"', true},
		{'\'', '\'', false},
		{'?', '?', true},
		{'/', '/', false},
		{'\n', XK_Return, false},
		{'\r', XK_Return, false},
		{'\t', XK_Tab, false},
		{'\b', XK_BackSpace, false},
		{0x1b, XK_Escape, false},
		{0x00, 0, false},
		{0x07, 0, false},
		{0x7f, 0, false},
		{0x85, 0, false},
		{0xa0, 0xa0, false},
		{'é', 0xe9, false},
		{'É', 0xc9, true},
		{'À', 0xc0, true},
		{'Þ', 0xde, true},
		{'×', 0xd7, false},
		{'ß', 0xdf, false},
		{'ÿ', 0xff, false},
		{'€', 0x010020ac, false},
		{'日', 0x010065e5, false},
		{'😀', 0x0101f600, false},
		{0xd800, 0, false},
		{-1, 0, false},
		{0x110000, 0, false},
	}
	for _, tt := range tests {
		sym, shift := RuneKeysym(tt.r)
		if sym != tt.sym || shift != tt.shift {
			t.Errorf("RuneKeysym(%U) = %#x, %v; want %#x, %v", tt.r, sym, shift, tt.sym, tt.shift)
		}
	}
}

func TestScancode(t *testing.T) {
	tests := []struct {
		sym   uint32
		code  uint16
		shift bool
		ok    bool
	}{
		{'a', 0x1e, false, true},
		{'A', 0x1e, true, true},
		{'q', 0x10, false, true},
		{'Z', 0x2c, true, true},
		{'m', 0x32, false, true},
		{'1', 0x02, false, true},
		{'!', 0x02, true, true},
		{'0', 0x0b, false, true},
		{')', 0x0b, true, true},
		{'-', 0x0c, false, true},
		{'_', 0x0c, true, true},
		{'=', 0x0d, false, true},
		{'+', 0x0d, true, true},
		{'`', 0x29, false, true},
		{'~', 0x29, true, true},
		{'\\', 0x2b, false, true},
		{'|', 0x2b, true, true},
		{'/', 0x35, false, true},
		{'?', 0x35, true, true},
		{' ', 0x39, false, true},
		{XK_Return, 0x1c, false, true},
		{XK_Escape, 0x01, false, true},
		{XK_BackSpace, 0x0e, false, true},
		{XK_Tab, 0x0f, false, true},
		{XK_Control_L, 0x1d, false, true},
		{XK_Control_R, 0xe01d, false, true},
		{XK_Alt_L, 0x38, false, true},
		{XK_Alt_R, 0xe038, false, true},
		{XK_ISO_Level3_Shift, 0xe038, false, true},
		{XK_Shift_L, 0x2a, false, true},
		{XK_Shift_R, 0x36, false, true},
		{XK_Super_L, 0xe05b, false, true},
		{XK_Super_R, 0xe05c, false, true},
		{XK_Menu, 0xe05d, false, true},
		{XK_Right, 0xe04d, false, true},
		{XK_Left, 0xe04b, false, true},
		{XK_Up, 0xe048, false, true},
		{XK_Down, 0xe050, false, true},
		{XK_Delete, 0xe053, false, true},
		{XK_Insert, 0xe052, false, true},
		{XK_Home, 0xe047, false, true},
		{XK_End, 0xe04f, false, true},
		{XK_Page_Up, 0xe049, false, true},
		{XK_Page_Down, 0xe051, false, true},
		{XK_Print, 0xe037, false, true},
		{XK_Pause, 0xe046, false, true},
		{XK_Caps_Lock, 0x3a, false, true},
		{XK_Num_Lock, 0x45, false, true},
		{XK_Scroll_Lock, 0x46, false, true},
		{XK_KP_Enter, 0xe01c, false, true},
		{XK_KP_Divide, 0xe035, false, true},
		{XK_KP_0, 0x52, false, true},
		{XK_KP_0 + 5, 0x4c, false, true},
		{F(1), 0x3b, false, true},
		{F(10), 0x44, false, true},
		{F(11), 0x57, false, true},
		{F(12), 0x58, false, true},
		{F(13), 0x64, false, true},
		{F(24), 0x76, false, true},
		{F(25), 0, false, false},
		{0xe9, 0, false, false},       // é: no US key
		{0x010020ac, 0, false, false}, // €
		{0, 0, false, false},
		{0x7f, 0, false, false},
	}
	for _, tt := range tests {
		code, shift, ok := Scancode(tt.sym)
		if code != tt.code || shift != tt.shift || ok != tt.ok {
			t.Errorf("Scancode(%#x) = %#x, %v, %v; want %#x, %v, %v", tt.sym, code, shift, ok, tt.code, tt.shift, tt.ok)
		}
	}
}

// Every printable ASCII character has a US key, and Scancode agrees with
// RuneKeysym about Shift.
func TestScancodeCoversPrintableASCII(t *testing.T) {
	for r := rune(0x20); r <= 0x7e; r++ {
		sym, shift := RuneKeysym(r)
		_, sshift, ok := Scancode(sym)
		if !ok || sshift != shift {
			t.Errorf("%q: Scancode ok=%v shift=%v, RuneKeysym shift=%v", r, ok, sshift, shift)
		}
	}
	for _, k := range Table() {
		if _, _, ok := Scancode(k.Sym); !ok {
			t.Errorf("named key %s (%#x) has no scan code", k.Name, k.Sym)
		}
	}
}

func TestQEMUCodeAndSplitExtended(t *testing.T) {
	tests := []struct {
		code uint16
		qemu uint32
		low  uint8
		ext  bool
	}{
		{0x1e, 0x1e, 0x1e, false},
		{0x01, 0x01, 0x01, false},
		{0x76, 0x76, 0x76, false},
		{0xe04d, 0xcd, 0x4d, true},
		{0xe053, 0xd3, 0x53, true},
		{0xe05b, 0xdb, 0x5b, true},
		{0xe01d, 0x9d, 0x1d, true},
	}
	for _, tt := range tests {
		if got := QEMUCode(tt.code); got != tt.qemu {
			t.Errorf("QEMUCode(%#x) = %#x, want %#x", tt.code, got, tt.qemu)
		}
		low, ext := SplitExtended(tt.code)
		if low != tt.low || ext != tt.ext {
			t.Errorf("SplitExtended(%#x) = %#x, %v; want %#x, %v", tt.code, low, ext, tt.low, tt.ext)
		}
	}
}

func TestParseChord(t *testing.T) {
	tests := []struct {
		in   string
		want []uint32
	}{
		{"Enter", []uint32{XK_Return}},
		{"return", []uint32{XK_Return}},
		{"ENTER", []uint32{XK_Return}},
		{"Escape", []uint32{XK_Escape}},
		{"esc", []uint32{XK_Escape}},
		{"Tab", []uint32{XK_Tab}},
		{"BackSpace", []uint32{XK_BackSpace}},
		{"Backspace", []uint32{XK_BackSpace}},
		{"Del", []uint32{XK_Delete}},
		{"Insert", []uint32{XK_Insert}},
		{"Home", []uint32{XK_Home}},
		{"End", []uint32{XK_End}},
		{"PageUp", []uint32{XK_Page_Up}},
		{"Page_Up", []uint32{XK_Page_Up}},
		{"prior", []uint32{XK_Page_Up}},
		{"PageDown", []uint32{XK_Page_Down}},
		{"Page_Down", []uint32{XK_Page_Down}},
		{"Next", []uint32{XK_Page_Down}},
		{"Up", []uint32{XK_Up}},
		{"Down", []uint32{XK_Down}},
		{"Left", []uint32{XK_Left}},
		{"Right", []uint32{XK_Right}},
		{"F1", []uint32{XK_F1}},
		{"f12", []uint32{F(12)}},
		{"F24", []uint32{XK_F24}},
		{"Space", []uint32{XK_space}},
		{"Menu", []uint32{XK_Menu}},
		{"Print", []uint32{XK_Print}},
		{"Pause", []uint32{XK_Pause}},
		{"CapsLock", []uint32{XK_Caps_Lock}},
		{"NumLock", []uint32{XK_Num_Lock}},
		{"ScrollLock", []uint32{XK_Scroll_Lock}},
		{"a", []uint32{'a'}},
		{"A", []uint32{'A'}},
		{"1", []uint32{'1'}},
		{"/", []uint32{'/'}},
		{"é", []uint32{0xe9}},
		{"€", []uint32{0x010020ac}},
		{"plus", []uint32{'+'}},
		{"ctrl+c", []uint32{XK_Control_L, 'c'}},
		{"Ctrl+C", []uint32{XK_Control_L, 'c'}},
		{"ctrl+shift+C", []uint32{XK_Control_L, XK_Shift_L, 'C'}},
		{"shift+A", []uint32{XK_Shift_L, 'A'}},
		{"shift+a", []uint32{XK_Shift_L, 'A'}},
		{"shift+1", []uint32{XK_Shift_L, '!'}},
		{"shift+!", []uint32{XK_Shift_L, '!'}},
		{"shift+é", []uint32{XK_Shift_L, 0xc9}},
		{"shift+F5", []uint32{XK_Shift_L, F(5)}},
		{"ctrl+É", []uint32{XK_Control_L, 0xc9}},
		{"control+c", []uint32{XK_Control_L, 'c'}},
		{"alt+F4", []uint32{XK_Alt_L, F(4)}},
		{"ctrl+alt+Delete", []uint32{XK_Control_L, XK_Alt_L, XK_Delete}},
		{"super+r", []uint32{XK_Super_L, 'r'}},
		{"win+r", []uint32{XK_Super_L, 'r'}},
		{"meta+r", []uint32{XK_Super_L, 'r'}},
		{"cmd+q", []uint32{XK_Super_L, 'q'}},
		{"shift+Tab", []uint32{XK_Shift_L, XK_ISO_Left_Tab}},
		{"altgr+e", []uint32{XK_ISO_Level3_Shift, 'e'}},
		{"ctrl+plus", []uint32{XK_Control_L, '+'}},
		{"ctrl+-", []uint32{XK_Control_L, '-'}},
		{"ctrl + shift + t", []uint32{XK_Control_L, XK_Shift_L, 'T'}},
		{"c+ctrl", []uint32{XK_Control_L, 'c'}},
		{"ctrl+ctrl+c", []uint32{XK_Control_L, 'c'}},
		{"ctrl", []uint32{XK_Control_L}},
		{"ctrl+shift", []uint32{XK_Control_L, XK_Shift_L}},
	}
	for _, tt := range tests {
		got, err := ParseChord(tt.in)
		if err != nil {
			t.Errorf("ParseChord(%q): %v", tt.in, err)
			continue
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("ParseChord(%q) = %#x, want %#x", tt.in, got, tt.want)
		}
	}
}

func TestParseChordErrors(t *testing.T) {
	tests := []struct {
		in       string
		name     string // expected UnknownKeyError.Name
		inReason string // substring of the message
	}{
		{"", "", "plus"},
		{"+", "", "plus"},
		{"ctrl++", "", "plus"},
		{"ctrl+", "", "empty"},
		{"+a", "", "empty"},
		{"Foo", "Foo", "unknown key"},
		{"ctrl+Foo", "Foo", "unknown key"},
		{"F25", "F25", "unknown key"},
		{"F0", "F0", "unknown key"},
		{"hyper+a", "hyper", "unknown key"},
		{"ab", "ab", "unknown key"},
		{"a+b", "b", "more than one"},
		{"ctrl+c+v", "v", "more than one"},
		{"\x01", "\x01", "unknown key"},
		{"\t", "", "empty"},                 // trimmed to nothing
		{"\u200b", "\u200b", "unknown key"}, // zero-width space is not printable
		{strings.Repeat("a", MaxChordLen+1), "", "longer"},
		{strings.Repeat("ctrl+", 9) + "c", "", "more than"},
	}
	for _, tt := range tests {
		_, err := ParseChord(tt.in)
		var uk *UnknownKeyError
		if !errors.As(err, &uk) {
			t.Errorf("ParseChord(%q) error = %v, want *UnknownKeyError", tt.in, err)
			continue
		}
		if uk.Name != tt.name {
			t.Errorf("ParseChord(%q) Name = %q, want %q", tt.in, uk.Name, tt.name)
		}
		if !strings.Contains(err.Error(), tt.inReason) {
			t.Errorf("ParseChord(%q) message %q lacks %q", tt.in, err.Error(), tt.inReason)
		}
	}
}

func TestNamesAllParse(t *testing.T) {
	names := Names()
	if len(names) < len(Table()) {
		t.Fatalf("Names has %d entries, table %d", len(names), len(Table()))
	}
	seen := map[string]bool{}
	for _, n := range names {
		low := strings.ToLower(n)
		if seen[low] {
			t.Errorf("name %q listed twice", n)
		}
		seen[low] = true
		if syms, err := ParseChord(n); err != nil || len(syms) != 1 {
			t.Errorf("ParseChord(%q) = %v, %v", n, syms, err)
		}
	}
	for _, want := range []string{"Enter", "Return", "Esc", "F1", "F24", "ctrl", "super", "cmd", "meta", "altgr", "plus"} {
		if !slices.Contains(names, want) {
			t.Errorf("Names lacks %q", want)
		}
	}
}

func TestIsModifier(t *testing.T) {
	for _, sym := range []uint32{XK_Shift_L, XK_Shift_R, XK_Control_L, XK_Control_R, XK_Alt_L, XK_Alt_R,
		XK_Meta_L, XK_Meta_R, XK_Super_L, XK_Super_R, XK_ISO_Level3_Shift, XK_Mode_switch} {
		if !IsModifier(sym) {
			t.Errorf("IsModifier(%#x) = false", sym)
		}
	}
	for _, sym := range []uint32{'a', 'A', XK_Return, XK_Caps_Lock, XK_Num_Lock, XK_F1, 0} {
		if IsModifier(sym) {
			t.Errorf("IsModifier(%#x) = true", sym)
		}
	}
}

func FuzzParseChord(f *testing.F) {
	for _, s := range []string{"Enter", "ctrl+c", "alt+F4", "ctrl+alt+Delete", "super+r", "shift+Tab",
		"a", "A", "ctrl++", "+", "", "plus", "ctrl + shift + t", "é", "\xff", "F99", "a+b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		syms, err := ParseChord(s)
		if err != nil {
			var uk *UnknownKeyError
			if !errors.As(err, &uk) {
				t.Fatalf("error of type %T", err)
			}
			_ = err.Error()
			return
		}
		if len(syms) == 0 || len(syms) > maxChordParts {
			t.Fatalf("ParseChord(%q) gave %d keys", s, len(syms))
		}
		for i, sym := range syms {
			if sym == 0 {
				t.Fatalf("zero keysym in %#x", syms)
			}
			// Modifiers first, at most one non-modifier, and it is last.
			if !IsModifier(sym) && i != len(syms)-1 {
				t.Fatalf("non-modifier %#x before the end in %#x", sym, syms)
			}
		}
		if !utf8.ValidString(s) && len(syms) > 0 {
			// Invalid bytes can only ever reach us inside a table name, which
			// is ASCII; so a valid result means the input was valid there.
			for _, p := range strings.Split(s, "+") {
				if !utf8.ValidString(strings.TrimSpace(p)) {
					t.Fatalf("accepted invalid UTF-8 part in %q", s)
				}
			}
		}
	})
}
