package wire

import (
	"strings"
	"testing"
)

func TestCheckLabel(t *testing.T) {
	for s, ok := range map[string]bool{
		"agent-7": true, "filling the form — step 2": true, "漢字": true, "": true,
		"a\x1b]0;x\a": false, "two\nlines": false, "tab\there": false, "\u009b": false,
		"\u202eevil": false, "\xff": false, strings.Repeat("a", 64): true, strings.Repeat("a", 65): false,
	} {
		err := CheckLabel("name", s, 64, "fix it")
		if (err == nil) != ok {
			t.Errorf("CheckLabel(%q) = %v, want ok %v", s, err, ok)
		}
		if err != nil && (err.Code != BadRequest || err.Next != "fix it") {
			t.Errorf("CheckLabel(%q) = %+v", s, err)
		}
		if c := CleanLabel(s, 64); CheckLabel("name", c, 64, "") != nil {
			t.Errorf("CleanLabel(%q) = %q, which CheckLabel refuses", s, c)
		}
	}
	if c := CleanLabel(strings.Repeat("é", 40), 64); len(c) != 64 || !strings.HasSuffix(c, "é") {
		t.Errorf("CleanLabel cut %q", c)
	}
}
