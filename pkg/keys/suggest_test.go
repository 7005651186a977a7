package keys

import (
	"errors"
	"slices"
	"testing"
)

// TestDashChordsAccepted: vncdotool's '-' spelling is the '+' chord where
// it is unambiguous; elsewhere '-' stays the minus key or an error.
func TestDashChordsAccepted(t *testing.T) {
	for in, same := range map[string]string{
		"ctrl-c":          "ctrl+c",
		"ctrl-alt-del":    "ctrl+alt+Delete",
		"shift-Tab":       "shift+Tab",
		"super-r":         "super+r",
		"ctrl-shift-c":    "ctrl+shift+c",
		"alt - F4":        "alt+F4",
		"-":               "-",
		"ctrl+-":          "ctrl+-",
		"control-Return":  "ctrl+Enter",
		"ctrl-alt-minus?": "",
	} {
		got, err := ParseChord(in)
		if same == "" {
			if err == nil {
				t.Errorf("ParseChord(%q) = %v, want an error", in, got)
			}
			continue
		}
		want, werr := ParseChord(same)
		if err != nil || werr != nil || !slices.Equal(got, want) {
			t.Errorf("ParseChord(%q) = %v, %v; want %v (as %q)", in, got, err, want, same)
		}
	}
}

// TestUnknownKeySuggestsNearest: an unknown name's error names the chord
// spelled with the nearest name, and none when nothing is near.
func TestUnknownKeySuggestsNearest(t *testing.T) {
	for _, c := range []struct{ in, suggest string }{
		{"ctl+c", "ctrl+c"},
		{"ctl-c", "ctrl+c"},
		{"Retrun", "Return"},
		{"ctrl+Escpe", "ctrl+Escape"},
		{"ctrl+alt+Delet", "ctrl+alt+Delete"},
		{"PageUpp", "PageUp"},
		{"Page-Up", "PageUp"},
		{"ctrl+nosuchkey", ""},
		{"a-b", ""}, // two keys that are not modifiers: no chord to suggest
		{"hello", ""},
	} {
		_, err := ParseChord(c.in)
		var uk *UnknownKeyError
		if !errors.As(err, &uk) {
			t.Errorf("ParseChord(%q): %v, want *UnknownKeyError", c.in, err)
			continue
		}
		if uk.Suggest != c.suggest {
			t.Errorf("ParseChord(%q) suggests %q, want %q (%v)", c.in, uk.Suggest, c.suggest, err)
		}
		if c.suggest != "" {
			if _, err := ParseChord(c.suggest); err != nil {
				t.Errorf("the suggestion %q does not parse: %v", c.suggest, err)
			}
		}
	}
}
