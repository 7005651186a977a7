package script

import (
	"slices"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	vars := map[string]string{"who": "ann b", "n": "3"}
	for _, c := range []struct {
		line string
		want []string
		err  string
	}{
		{"", nil, ""},
		{"   # only a comment", nil, ""},
		{"click 300 200", []string{"click", "300", "200"}, ""},
		{`type "hello world"`, []string{"type", "hello world"}, ""},
		{`type 'it''s'`, []string{"type", "its"}, ""},
		{`type "say \"hi\" \\ \$5"`, []string{"type", `say "hi" \ $5`}, ""},
		{`type hello\ world`, []string{"type", "hello world"}, ""},
		{`type "hi ${who}" # greet`, []string{"type", "hi ann b"}, ""},
		{`type ${who}`, []string{"type", "ann b"}, ""},
		{`type '${who}'`, []string{"type", "${who}"}, ""},
		{`type a#b`, []string{"type", "a#b"}, ""},
		{`type "#x"`, []string{"type", "#x"}, ""},
		{`type $$HOME $x`, []string{"type", "$HOME", "$x"}, ""},
		{`key ${n}${n}`, []string{"key", "33"}, ""},
		{`type ""`, []string{"type", ""}, ""},
		{`type "open`, nil, `" is not closed`},
		{`type 'open`, nil, `' is not closed`},
		{`type ${missing}`, nil, "--var missing=VALUE"},
		{`type ${1x}`, nil, "letters, digits"},
		{`type ${open`, nil, "not closed"},
		{`type end\`, nil, "backslash"},
	} {
		got, err := Split(c.line, vars)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Split(%q): error %v, want one saying %q", c.line, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("Split(%q) = %q, %v; want %q", c.line, got, err, c.want)
		}
	}
}

func TestParseNumbersStepsByLine(t *testing.T) {
	src := "# login\n\nclick 10 20\r\n  type \"${user}\"   # the name\nkey Enter\n"
	steps, err := Parse(src, map[string]string{"user": "ann"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Step{
		{Line: 3, Text: "click 10 20", Args: []string{"click", "10", "20"}},
		{Line: 4, Text: `type "${user}"`, Args: []string{"type", "ann"}},
		{Line: 5, Text: "key Enter", Args: []string{"key", "Enter"}},
	}
	if len(steps) != len(want) {
		t.Fatalf("got %+v", steps)
	}
	for i := range want {
		if steps[i].Line != want[i].Line || steps[i].Text != want[i].Text || !slices.Equal(steps[i].Args, want[i].Args) {
			t.Errorf("step %d = %+v, want %+v", i, steps[i], want[i])
		}
	}
}

func TestParseRefusesNamingTheLine(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"click 1 2\ntype ${nope}\n", "line 2: ${nope} has no value"},
		{"key a\n\nclick 1\n", "line 3: vncdotool's click acts where the pointer is"},
		{"move 1 2\nmousedown 1\n", "ends with button 1 down"},
		{"keydown ctrl\n", "ends with ctrl held"},
		{"mouseup 1\n", "line 1: mouseup 1 without mousedown"},
		{"move 1\n", "line 1: vncdotool's move takes 2"},
		{"move 1 2\nmousedown 1\ntype x\nmouseup 1\n", "line 3: button 1 is still down"},
		{"pause forever\n", "line 1: pause forever: seconds"},
		{"key " + strings.Repeat("a", MaxLine) + "\n", "line 1: the line is longer"},
	} {
		_, err := Parse(c.src, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%.40q): %v, want %q", c.src, err, c.want)
		}
	}
}

// TestVncdoVerbs: each vncdotool verb becomes the dvv step that means the
// same, with the pointer followed through the script.
func TestVncdoVerbs(t *testing.T) {
	src := `move 100 200
click 1
click 3
click 4
click 5
mousedown 1
drag 300 250
mouseup 1
mousemove 10 10
mousedown 2
mouseup 2
keydown shift
click 1
key a
keyup shift
key ctrl-c
key ctrl-alt-del
key enter
key bsp
key Return
capture out.png
rcapture part.png 1 2 30 40
expect ok.png 5
rexpect ok.png 1 2 30 40 0
pause 0.5
sleep 2
sleep 500ms
type "hello world"
click 7 8
expect ok.png
`
	want := [][]string{
		{"click", "100", "200", "--action", "move"},
		{"click", "100", "200"},
		{"click", "100", "200", "--action", "right"},
		{"click", "100", "200", "--action", "scroll", "--direction", "up"},
		{"click", "100", "200", "--action", "scroll", "--direction", "down"},
		{"click", "100", "200", "--action", "drag", "--to-x", "300", "--to-y", "250", "--button", "left"},
		{"click", "10", "10", "--action", "move"},
		{"click", "10", "10", "--action", "middle"},
		{"click", "10", "10", "--modifiers", "shift"},
		{"key", "shift+a"},
		{"key", "ctrl-c"}, // dvv reads vncdotool's dash spelling itself
		{"key", "ctrl-alt-del"},
		{"key", "enter"},
		{"key", "BackSpace"},
		{"key", "Return"},
		{"screen", "--out", "out.png"},
		{"screen", "--region", "1,2,30,40", "--out", "part.png"},
		{"expect", "ok.png"},
		{"expect", "ok.png", "--region", "1,2,30,40"},
		{"sleep", "0.5s"},
		{"sleep", "2s"},
		{"sleep", "500ms"},
		{"type", "hello world"},
		{"click", "7", "8"},
		{"expect", "ok.png"},
	}
	steps, err := Parse(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != len(want) {
		for _, s := range steps {
			t.Log(s.Line, s.Args)
		}
		t.Fatalf("got %d steps, want %d", len(steps), len(want))
	}
	for i, s := range steps {
		if !slices.Equal(s.Args, want[i]) {
			t.Errorf("line %d %q became %q, want %q", s.Line, s.Text, s.Args, want[i])
		}
	}
}

// TestChainIsVncdosCommandLine: vncdo's own command line, verbs cut by
// their arity, the way `dvv script --vncdo -- …` reads it.
func TestChainIsVncdosCommandLine(t *testing.T) {
	steps, err := Chain(strings.Fields("move 100 100 click 1 type hi key enter capture out.png expect out.png 0 pause 1"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range steps {
		got = append(got, strings.Join(s.Args, " "))
	}
	want := []string{"click 100 100 --action move", "click 100 100", "type hi", "key enter", "screen --out out.png", "expect out.png", "sleep 1s"}
	if !slices.Equal(got, want) {
		t.Errorf("Chain = %q, want %q", got, want)
	}
	for _, bad := range []string{"-s host::5901 type hi", "type", "frobnicate 1", "key nokey"} {
		if _, err := Chain(strings.Fields(bad)); err == nil {
			t.Errorf("Chain(%q) was accepted", bad)
		}
	}
	steps, err = ParseVncdo("move 5 6 click 1 # two verbs on a line\nkey ctrl-c\n", nil)
	if err != nil || len(steps) != 3 || steps[1].Line != 1 || steps[2].Line != 2 {
		t.Errorf("ParseVncdo: %+v %v", steps, err)
	}
}

func TestQuoteRoundTrips(t *testing.T) {
	for _, w := range []string{"plain", "", "two words", `it's`, `say "hi"`, `a\b`, "$HOME", "${x}", "#tag", "tab\there"} {
		got, err := Split("type "+Quote(w), nil)
		if err != nil || len(got) != 2 || got[1] != w {
			t.Errorf("Quote(%q) = %s reads back as %q, %v", w, Quote(w), got, err)
		}
	}
}

// FuzzParse: no script, however malformed, panics the reader, and every
// step it reads has a line within the script and at least one word.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"click 1 2\ntype \"a ${v}\"\n", "move 1 2 \nmousedown 1\nmouseup 1", "key ctrl-c # c", "'\"\\$", "${", "sleep 1.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		steps, err := Parse(src, map[string]string{"v": "x"})
		if err != nil {
			return
		}
		lines := strings.Count(src, "\n") + 1
		for _, s := range steps {
			if s.Line < 1 || s.Line > lines || len(s.Args) == 0 {
				t.Fatalf("step %+v of a %d-line script", s, lines)
			}
		}
		ParseVncdo(src, nil)
	})
}
