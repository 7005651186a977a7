package script

import (
	"slices"
	"testing"
)

// TestVncdoRefusesNamingTheLine: each of the translator's refusals, with
// the line it names and the words that say what to write instead.
func TestVncdoRefusesNamingTheLine(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"click 1", "line 1: vncdotool's click acts where the pointer is, and no move came before it: add move X Y first"},
		{"mousedown 1", "line 1: vncdotool's mousedown acts where the pointer is, and no move came before it: add move X Y first"},
		{"move 1 2\nmousedown 4", "line 2: mousedown 4: only buttons 1, 2 and 3 can be held (4 and 5 are the wheel: click 4, click 5)"},
		{"move 1 2\nmousedown 9", `line 2: button "9": 1 (left), 2 (middle), 3 (right), 4 or 5 (the wheel)`},
		{"mouseup 1", "line 1: mouseup 1 without mousedown 1 before it"},
		{"move 1 2\nmousedown 1\nmouseup 3", "line 3: mouseup 3 without mousedown 3 before it"},
		{"move 1 2\nmousedown 1\nclick 10 20", "line 3: button 1 is still down (mousedown): end the press with mouseup 1 first"},
		{"move 1 2\nmousedown 1\ntype hi", "line 3: button 1 is still down (mousedown): end the press with mouseup 1 first"},
		{"move 1 2\nmousedown 1\nkey enter", "line 3: button 1 is still down (mousedown): end the press with mouseup 1 first"},
		{"move 1 2\nmousedown 1", "the script ends with button 1 down: add mouseup 1"},
		{"keyup shift", "line 1: keyup shift without keydown shift before it"},
		{"keydown lctrl", "the script ends with ctrl held: add keyup"},
		{"keydown shift\nkey nokey", "line 2: key nokey: not a key name dvv or vncdotool knows (docs/keys.md lists them)"},
		{"move -1 2", "line 1: -1 2 is not a point in whole framebuffer pixels"},
		{"move 1", "line 1: vncdotool's move takes 2 argument(s), not 1"},
		{"drag 1 2 3", "line 1: vncdotool's drag takes 2 argument(s), not 3"},
		{"rcapture a.png 1 2 3 x", "line 1: 1 2 3 x is not a region x y w h in whole pixels"},
		{"rexpect a.png 1 2 3 4.5 0", "line 1: 1 2 3 4.5 is not a region x y w h in whole pixels"},
		{"pause 3601", "line 1: pause 3601: seconds from 0 to 3600"},
		{"pause -1", "line 1: pause -1: seconds from 0 to 3600"},
		{"pause soon", "line 1: pause soon: seconds from 0 to 3600"},
	} {
		_, err := Parse(c.src, nil)
		if err == nil || err.Error() != c.want {
			t.Errorf("Parse(%q) = %v, want %q", c.src, err, c.want)
		}
	}
}

// TestVncdoStepsNameTheirVerb: a translated step carries the vncdotool verb
// it came from; a line that is dvv's own passes on as written.
func TestVncdoStepsNameTheirVerb(t *testing.T) {
	src := `click 10 20
key ctrl+c
sleep 2s
expect ok.png --region 1,2,3,4
move 5 6
mousedown 1
move 7 8
mouseup 1
mousedown 3
mouseup 3
keydown alt
key tab
keyup alt
capture a.png
pause 1
`
	want := []struct {
		vncdo string
		args  []string
	}{
		{"", []string{"click", "10", "20"}},
		{"", []string{"key", "ctrl+c"}},
		{"", []string{"sleep", "2s"}},
		{"", []string{"expect", "ok.png", "--region", "1,2,3,4"}},
		{"move", []string{"click", "5", "6", "--action", "move"}},
		{"mouseup", []string{"click", "5", "6", "--action", "drag", "--to-x", "7", "--to-y", "8", "--button", "left"}},
		{"mouseup", []string{"click", "7", "8", "--action", "right"}},
		{"key", []string{"key", "alt+tab"}},
		{"capture", []string{"screen", "--out", "a.png"}},
		{"pause", []string{"sleep", "1s"}},
	}
	steps, err := Parse(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != len(want) {
		t.Fatalf("got %d steps (%+v), want %d", len(steps), steps, len(want))
	}
	for i, s := range steps {
		if s.Vncdo != want[i].vncdo || !slices.Equal(s.Args, want[i].args) {
			t.Errorf("line %d %q became %q from %q, want %q from %q", s.Line, s.Text, s.Args, s.Vncdo, want[i].args, want[i].vncdo)
		}
	}
}
