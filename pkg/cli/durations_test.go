package cli

import (
	"strings"
	"testing"
)

// TestDurationFlags: every time-valued flag takes a duration under one
// name, and the millisecond spellings (-ms, Ms) send the same request; a
// bare number is refused with the units to write.
func TestDurationFlags(t *testing.T) {
	for _, c := range []struct {
		want  string
		forms [][]string
	}{
		{`{"op":"run","limbId":"ssh-1","timeoutMs":5000,"command":"true"}`, [][]string{
			{"run", "ssh-1", "--timeout", "5s", "true"}, {"run", "ssh-1", "--timeout-ms", "5000", "true"}, {"run", "ssh-1", "--timeoutMs", "5000", "true"}}},
		{`{"op":"wait","limbId":"vnc-1","until":"idle","quietMs":1500,"timeoutMs":20000}`, [][]string{
			{"wait", "vnc-1", "--until", "idle", "--quiet", "1500ms", "--timeout", "20s"},
			{"wait", "vnc-1", "--until", "idle", "--quiet-ms", "1500", "--timeout-ms", "20000"},
			{"wait", "vnc-1", "--until", "idle", "--quietMs", "1500", "--timeoutMs", "20000"}}},
		{`{"op":"control","limbId":"vnc-1","action":"acquire","waitMs":2000}`, [][]string{
			{"control", "acquire", "vnc-1", "--wait", "2s"}, {"control", "acquire", "vnc-1", "--wait-ms", "2000"}, {"control", "acquire", "vnc-1", "--waitMs", "2000"}}},
		{`{"op":"reconnect","limbId":"vnc-1","timeoutMs":500}`, [][]string{
			{"reconnect", "vnc-1", "--timeout", "500ms"}, {"reconnect", "vnc-1", "--timeout-ms", "500"}}},
		{`{"op":"key","limbId":"vnc-1","verifyMs":0,"keys":"enter"}`, [][]string{
			{"--verify", "0s", "key", "vnc-1", "enter"}, {"--verify-ms", "0", "key", "vnc-1", "enter"}, {"key", "vnc-1", "enter", "--verifyMs=0"}}},
	} {
		for _, args := range c.forms {
			req, code, _, errs := sent(t, args...)
			if code != 0 || req == nil {
				t.Errorf("dvv %s: exit %d %q", strings.Join(args, " "), code, errs)
				continue
			}
			if got := requestJSON(t, req); got != c.want {
				t.Errorf("dvv %s sent\n %s\nwant %s", strings.Join(args, " "), got, c.want)
			}
		}
	}
	req, code, _, errs := sent(t, "run", "ssh-1", "--timeout", "5000", "true")
	if code != 2 || req != nil || !strings.Contains(errs, "5s or 1500ms") {
		t.Errorf("a bare number: exit %d %q", code, errs)
	}
	_, _, out, _ := sent(t, "--help")
	if line := lineWith(out, "--verify"); strings.Count(line, "default") != 1 {
		t.Errorf("--verify help states its default %d times: %q", strings.Count(line, "default"), line)
	}
}

func lineWith(text, s string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}
