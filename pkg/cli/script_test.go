package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/pkg/script"
)

// TestStepArgvPutsTheLimbWhereTheCommandTakesIt: --limb goes after the
// command's name (and sub-command's), never into a command without a limb;
// a step that is no command, or one a script may not run, is refused
// naming its line before anything runs.
func TestStepArgvPutsTheLimbWhereTheCommandTakesIt(t *testing.T) {
	for _, c := range []struct {
		step, limb string
		want       []string
		err        string
	}{
		{"click 300 200", "L", []string{"click", "L", "300", "200"}, ""},
		{"click --action double 1 2", "L", []string{"click", "L", "--action", "double", "1", "2"}, ""},
		{`type "a b"`, "L", []string{"type", "L", "a b"}, ""},
		{"control acquire", "L", []string{"control", "acquire", "L"}, ""},
		{"term send hi", "ssh-1", []string{"term", "send", "ssh-1", "hi"}, ""},
		{"wait --until screen-stable", "g/1", []string{"wait", "g/1", "--until", "screen-stable"}, ""},
		{"limbs", "L", []string{"limbs"}, ""},
		{"click vnc-1 3 4", "", []string{"click", "vnc-1", "3", "4"}, ""},
		{"sleep 500ms", "L", []string{"sleep", "500ms"}, ""},
		{"sleep forever", "L", nil, "line 7: sleep \"forever\""},
		{"sleep 2h", "L", nil, "from 0 to 1h"},
		{"script other.dvv", "L", nil, `"script" cannot be a script step`},
		{"daemon stop", "L", nil, "cannot be a script step"},
		{"frobnicate 1", "L", nil, "line 7: \"frobnicate\" is not a dvv command"},
	} {
		words, err := script.Split(c.step, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := stepArgv(script.Step{Line: 7, Text: c.step, Args: words}, c.limb)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want one saying %q", c.step, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%q with limb %q = %q, %v; want %q", c.step, c.limb, got, err, c.want)
		}
	}
}

// TestReplayReadsTheExportedActs: the act headers of an exported script
// give each step its act, time and checkpoint.
func TestReplayReadsTheExportedActs(t *testing.T) {
	src := "# dvv script of …\n\n# act 1 t=1.500 box=10,20,96,96: click 58,68 by ann\nexpect \"${script_dir}/x.act-1.png\"\nclick 58 68\n\n# act 2 t=2.250 box=-: typed 3 chars by ann (the screen there is flat: no checkpoint)\ntype \"${text_2}\"\n"
	acts := exportedActs(src)
	if a := acts[4]; a.n != 1 || a.t != 1.5 || a.box.x != 10 || a.box.h != 96 {
		t.Errorf("line 4: %+v", a)
	}
	if a := acts[5]; a.n != 1 {
		t.Errorf("line 5: %+v", a)
	}
	if a := acts[8]; a.n != 2 || !a.box.empty() {
		t.Errorf("line 8: %+v", a)
	}
}
