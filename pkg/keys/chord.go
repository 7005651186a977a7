package keys

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// NamedKey is one row of the fixed key-name table.
type NamedKey struct {
	Name    string   // canonical spelling
	Aliases []string // other accepted spellings
	Sym     uint32
}

// MaxChordLen bounds a chord string; no real chord comes near it.
const MaxChordLen = 128

// maxChordParts bounds the keys in one chord (all modifiers plus one key).
const maxChordParts = 8

var table = buildTable()

func buildTable() []NamedKey {
	t := []NamedKey{
		{"ctrl", []string{"control"}, XK_Control_L},
		{"alt", nil, XK_Alt_L},
		{"shift", nil, XK_Shift_L},
		{"super", []string{"win", "meta", "cmd"}, XK_Super_L},
		{"altgr", nil, XK_ISO_Level3_Shift},
		{"Enter", []string{"Return"}, XK_Return},
		{"Escape", []string{"Esc"}, XK_Escape},
		{"Tab", nil, XK_Tab},
		{"BackSpace", nil, XK_BackSpace},
		{"Delete", []string{"Del"}, XK_Delete},
		{"Insert", nil, XK_Insert},
		{"Home", nil, XK_Home},
		{"End", nil, XK_End},
		{"PageUp", []string{"Page_Up", "Prior"}, XK_Page_Up},
		{"PageDown", []string{"Page_Down", "Next"}, XK_Page_Down},
		{"Up", nil, XK_Up},
		{"Down", nil, XK_Down},
		{"Left", nil, XK_Left},
		{"Right", nil, XK_Right},
		{"Space", nil, XK_space},
		{"plus", nil, '+'},
		{"Menu", nil, XK_Menu},
		{"Print", nil, XK_Print},
		{"Pause", nil, XK_Pause},
		{"CapsLock", nil, XK_Caps_Lock},
		{"NumLock", nil, XK_Num_Lock},
		{"ScrollLock", nil, XK_Scroll_Lock},
	}
	for n := 1; n <= 24; n++ {
		t = append(t, NamedKey{Name: "F" + strconv.Itoa(n), Sym: F(n)})
	}
	return t
}

var byName = func() map[string]uint32 {
	m := make(map[string]uint32)
	for _, k := range table {
		m[strings.ToLower(k.Name)] = k.Sym
		for _, a := range k.Aliases {
			m[strings.ToLower(a)] = k.Sym
		}
	}
	return m
}()

// UnknownKeyError reports a chord part that is not a key name, or a chord
// that is malformed. The daemon answers it with UNKNOWN_KEY.
type UnknownKeyError struct {
	Name   string // the offending part ("" for an empty part)
	Chord  string // the whole chord as given
	Reason string // what is wrong, when more than "not in the table"
}

func (e *UnknownKeyError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("key chord %q: %s", e.Chord, e.Reason)
	}
	return fmt.Sprintf("unknown key %q in %q: use a name from the key table (Enter, Escape, Tab, ctrl, alt, shift, super, F1..F24, ...), a single character, or \"plus\" for '+'", e.Name, e.Chord)
}

// lookup resolves one chord part: a table name or a single printable
// character.
func lookup(part string) (uint32, bool) {
	if sym, ok := byName[strings.ToLower(part)]; ok {
		return sym, true
	}
	r, size := utf8.DecodeRuneInString(part)
	if size == len(part) && r != utf8.RuneError && unicode.IsPrint(r) {
		sym, _ := RuneKeysym(r)
		return sym, sym != 0
	}
	return 0, false
}

// ParseChord turns a key name or a chord ("Enter", "ctrl+c", "alt+F4",
// "ctrl+alt+Delete", "super+r", "A") into keysyms in press order: modifiers
// first, in the order written, the main key last. The caller releases them
// in reverse order.
//
// Parts are separated by '+' and may be padded with spaces. A chord has at
// most one non-modifier key; a chord of modifiers only ("ctrl") presses just
// them. Repeated modifiers count once. '+' itself is named "plus" (so
// "ctrl+plus"); a lone "+" or an empty part ("ctrl++") is an error.
// A lone letter is sent as its own keysym ("A" is keysym 'A', which types a
// capital); with modifiers a letter names its key, so "ctrl+C" is "ctrl+c"
// and the shifted chord is written "ctrl+shift+c". With shift the main key
// becomes the keysym its key types with Shift (see ShiftedKeysym), so
// "ctrl+shift+c" is Control_L, Shift_L, 'C'.
func ParseChord(s string) ([]uint32, error) {
	if len(s) > MaxChordLen {
		return nil, &UnknownKeyError{Chord: s[:MaxChordLen] + "...", Reason: fmt.Sprintf("longer than %d bytes", MaxChordLen)}
	}
	parts := strings.Split(s, "+")
	if len(parts) > maxChordParts {
		return nil, &UnknownKeyError{Chord: s, Reason: fmt.Sprintf("more than %d keys", maxChordParts)}
	}
	var mods []uint32
	var main uint32
	haveMain := false
	for _, p := range parts {
		name := strings.TrimSpace(p)
		if name == "" {
			return nil, &UnknownKeyError{Chord: s, Reason: `empty key name (write '+' as "plus", e.g. ctrl+plus)`}
		}
		sym, ok := lookup(name)
		if !ok {
			return nil, &UnknownKeyError{Name: name, Chord: s}
		}
		if IsModifier(sym) {
			if !containsSym(mods, sym) {
				mods = append(mods, sym)
			}
			continue
		}
		if haveMain {
			return nil, &UnknownKeyError{Name: name, Chord: s, Reason: "more than one non-modifier key; send keys one chord at a time"}
		}
		main, haveMain = sym, true
	}
	if haveMain {
		// With modifiers, a letter names its key, not a capital: ctrl+C is
		// ctrl+c, as a server would otherwise add a Shift of its own.
		if len(mods) > 0 && main >= 'A' && main <= 'Z' {
			main += 'a' - 'A'
		}
		// With Shift held, send what the key types with Shift (shift+a is
		// 'A', shift+1 is '!', shift+Tab is ISO_Left_Tab): keysym servers
		// (TigerVNC, x11vnc) press or release Shift to match the keysym,
		// so the unshifted one would arrive without Shift.
		if containsSym(mods, XK_Shift_L) {
			main = ShiftedKeysym(main)
		}
		mods = append(mods, main)
	}
	return mods, nil
}

// ShiftedKeysym is the keysym a US keyboard's key for sym types with Shift
// held: capitals for letters (ASCII and Latin-1), the shifted symbol for
// digits and punctuation, ISO_Left_Tab for Tab. Keys whose Shift level
// types the same keysym (F5, Left, Return...) come back unchanged.
func ShiftedKeysym(sym uint32) uint32 {
	switch {
	case sym == XK_Tab:
		return XK_ISO_Left_Tab
	case sym >= 0x20 && sym <= 0x7e:
		return uint32(shiftRune(rune(sym)))
	case sym >= 0xe0 && sym <= 0xfe && sym != 0xf7: // à..þ but not ÷
		return sym - 0x20
	}
	return sym
}

func containsSym(list []uint32, sym uint32) bool {
	for _, v := range list {
		if v == sym {
			return true
		}
	}
	return false
}
