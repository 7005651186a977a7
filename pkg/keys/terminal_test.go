package keys

import "testing"

func TestTerminalBytes(t *testing.T) {
	tests := []struct {
		chord     string
		appCursor bool
		want      string
		ok        bool
	}{
		{"Enter", false, "\r", true},
		{"Tab", false, "\t", true},
		{"shift+Tab", false, "\x1b[Z", true},
		{"BackSpace", false, "\x7f", true},
		{"ctrl+BackSpace", false, "\x08", true},
		{"Escape", false, "\x1b", true},
		{"alt+Enter", false, "\x1b\r", true},
		{"ctrl+c", false, "\x03", true},
		{"ctrl+C", false, "\x03", true},
		{"ctrl+d", false, "\x04", true},
		{"ctrl+[", false, "\x1b", true},
		{"ctrl+Space", false, "\x00", true},
		{"ctrl+?", false, "\x7f", true},
		{"ctrl+shift+2", false, "\x00", true}, // ctrl+@
		{"ctrl+1", false, "", false},
		{"alt+x", false, "\x1bx", true},
		{"alt+ctrl+a", false, "\x1b\x01", true},
		{"shift+a", false, "A", true},
		{"shift+1", false, "!", true},
		{"a", false, "a", true},
		{"é", false, "é", true},
		{"€", false, "€", true},
		{"Space", false, " ", true},
		{"plus", false, "+", true},
		{"Up", false, "\x1b[A", true},
		{"Up", true, "\x1bOA", true},
		{"Left", false, "\x1b[D", true},
		{"ctrl+Right", false, "\x1b[1;5C", true},
		{"ctrl+Right", true, "\x1b[1;5C", true},
		{"shift+Up", false, "\x1b[1;2A", true},
		{"Home", false, "\x1b[H", true},
		{"End", true, "\x1bOF", true},
		{"Delete", false, "\x1b[3~", true},
		{"ctrl+Delete", false, "\x1b[3;5~", true},
		{"Insert", false, "\x1b[2~", true},
		{"PageUp", false, "\x1b[5~", true},
		{"PageDown", false, "\x1b[6~", true},
		{"F1", false, "\x1bOP", true},
		{"F4", false, "\x1bOS", true},
		{"shift+F1", false, "\x1b[1;2P", true},
		{"F5", false, "\x1b[15~", true},
		{"F12", false, "\x1b[24~", true},
		{"alt+F5", false, "\x1b[15;3~", true},
		{"F13", false, "", false},
		{"super+r", false, "", false},
		{"altgr+e", false, "", false},
		{"CapsLock", false, "", false},
		{"ctrl", false, "", false},
		{"Menu", false, "", false},
	}
	for _, tt := range tests {
		syms, err := ParseChord(tt.chord)
		if err != nil {
			t.Fatalf("ParseChord(%q): %v", tt.chord, err)
		}
		got, ok := TerminalBytes(syms, tt.appCursor)
		if ok != tt.ok || string(got) != tt.want {
			t.Errorf("TerminalBytes(%q, %v) = %q, %v; want %q, %v", tt.chord, tt.appCursor, got, ok, tt.want, tt.ok)
		}
	}
	if _, ok := TerminalBytes(nil, false); ok {
		t.Error("empty chord gave bytes")
	}
}
