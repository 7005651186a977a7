package system_test

import (
	"strings"
	"testing"
)

// TestRecordCommandsSayWhatIsMissing: `dvv record list` (or start, stop,
// export) without its argument is a usage error (exit 2) that says what
// to give and where to find it, not cobra's bare count of arguments.
func TestRecordCommandsSayWhatIsMissing(t *testing.T) {
	d := startDaemon(t, "")
	for _, tc := range []struct{ args, want []string }{
		{[]string{"record", "list"}, []string{"needs a limb id", "dvv limbs"}},
		{[]string{"record", "start"}, []string{"needs a limb id"}},
		{[]string{"record", "stop"}, []string{"needs a limb id"}},
		{[]string{"record", "export", "--mp4"}, []string{"needs the recording's file", "dvv record list"}},
	} {
		r := d.dvv(tc.args...)
		if r.code != 2 {
			t.Errorf("dvv %s: exit %d, want 2 (usage)\n%v", strings.Join(tc.args, " "), r.code, r)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("dvv %s: stderr %q does not say %q", strings.Join(tc.args, " "), r.stderr, w)
			}
		}
	}
}
