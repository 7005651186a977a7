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
	// Suggest is the chord with each unknown name replaced by the nearest
	// one in the table ("ctrl+c" for "ctl+c"), "" when none is near.
	Suggest string
}

func (e *UnknownKeyError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("key chord %q: %s", e.Chord, e.Reason)
	}
	if e.Suggest != "" {
		return fmt.Sprintf("unknown key %q in %q: did you mean %q?", e.Name, e.Chord, e.Suggest)
	}
	return fmt.Sprintf("unknown key %q in %q: use a name from the key table (Enter, Escape, Tab, ctrl, alt, shift, super, F1..F24, ...), a single character, or \"plus\" for '+'", e.Name, e.Chord)
}

// dashChord reads vncdotool's spelling of a chord, its keys joined with
// '-' ("ctrl-c", "ctrl-alt-del"), as the chord joined with '+'. Only when
// that is unambiguous: no '+' in it, not a key name or character of its
// own ("-" is the minus key), and every part before the last a modifier,
// the last a key name or character.
func dashChord(s string) (string, bool) {
	if strings.Contains(s, "+") || !strings.Contains(s, "-") {
		return "", false
	}
	if _, ok := lookup(strings.TrimSpace(s)); ok {
		return "", false
	}
	parts := strings.Split(s, "-")
	for i, p := range parts {
		sym, ok := lookup(strings.TrimSpace(p))
		if !ok || (i < len(parts)-1 && !IsModifier(sym)) {
			return "", false
		}
	}
	return strings.Join(parts, "+"), true
}

// suggestChord is s with each part that is not a key name replaced by the
// nearest name in the table, joined with '+' (a chord written with '-'
// is read as dashChord would); "" when a part has no name near it.
func suggestChord(s string) string {
	if !strings.Contains(s, "+") && strings.Contains(s, "-") && len(s) > 1 {
		if out := suggestParts(s, "-"); out != "" {
			return out
		}
		return suggestParts(s, "") // one name written with '-' ("Page-Up")
	}
	return suggestParts(s, "+")
}

// suggestParts is suggestChord with s split at sep (not at all when sep
// is "").
func suggestParts(s, sep string) string {
	parts := []string{s}
	if sep != "" {
		parts = strings.Split(s, sep)
	}
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if _, ok := lookup(p); ok {
			parts[i] = p
			continue
		}
		near := nearestName(p)
		if near == "" {
			return ""
		}
		parts[i] = near
	}
	out := strings.Join(parts, "+")
	if out == s {
		return ""
	}
	if _, err := ParseChord(out); err != nil {
		return "" // e.g. two keys that are not modifiers ("a-b")
	}
	return out
}

// nearestName is the table name or alias closest to part (ignoring
// case): within one edit for names of up to four letters, two for longer
// ones; "" when none is that close.
func nearestName(part string) string {
	part = strings.ToLower(part)
	limit := 2
	if len(part) <= 4 {
		limit = 1
	}
	best, bestD := "", limit+1
	for _, k := range table {
		for _, n := range append([]string{k.Name}, k.Aliases...) {
			if d := editDistance(part, strings.ToLower(n)); d < bestD {
				best, bestD = n, d
			}
		}
	}
	return best
}

// editDistance is the Levenshtein distance of two short strings (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
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
// "ctrl+shift+c" is Control_L, Shift_L, 'C'. vncdotool's spelling with
// '-' is read as the same chord where that is unambiguous ("ctrl-c", see
// dashChord); an unknown name's error suggests the nearest one.
func ParseChord(s string) ([]uint32, error) {
	if len(s) > MaxChordLen {
		return nil, &UnknownKeyError{Chord: s[:MaxChordLen] + "...", Reason: fmt.Sprintf("longer than %d bytes", MaxChordLen)}
	}
	given := s
	if plus, ok := dashChord(s); ok {
		s = plus
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
			return nil, &UnknownKeyError{Name: name, Chord: given, Suggest: suggestChord(given)}
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
