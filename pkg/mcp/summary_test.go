package mcp

import "testing"

// TestSummaryNamesWhatHappened: the first line of a success's text for
// each kind of answer dvvd gives, read from the answer's JSON as the
// bridge reads it.
func TestSummaryNamesWhatHappened(t *testing.T) {
	tool := func(name string) *Tool {
		for i := range Tools {
			if Tools[i].Name == name {
				return &Tools[i]
			}
		}
		t.Fatalf("no tool %s", name)
		return nil
	}
	for _, c := range []struct {
		tool     string
		body     string
		withLine bool
		want     string
	}{
		{"dvv_screen", `{"screen":{"text":["$ ls","a b"]}}`, true, "dvv_screen: terminal screen, 2 rows:\n$ ls\na b"},
		{"dvv_screen", `{"screen":{"unchanged":true,"generation":7,"coverage":0.5}}`, true, "dvv_screen: nothing changed since this attachment's last read (generation 7, coverage 0.50)"},
		{"dvv_screen", `{"screen":{"width":640,"height":480,"generation":3,"coverage":1,"imageSpaceLine":"imageSpace: native"}}`, true, "dvv_screen: 640x480 image, generation 3, coverage 1.00; imageSpace: native"},
		{"dvv_screen", `{"screen":{"width":640,"height":480,"generation":3,"coverage":1,"imageSpaceLine":"imageSpace: native"}}`, false, "dvv_screen: 640x480 image, generation 3, coverage 1.00 (its imageSpace line is beside it)"},
		{"dvv_click", `{"dispatched":"click at 10,20","verification":{"status":"verified","afterMs":30}}`, true, "dvv_click: dispatched click at 10,20; verified after 30 ms"},
		{"dvv_click", `{"dispatched":"click at 10,20","verification":{"status":"dispatched"}}`, true, "dvv_click: dispatched click at 10,20 (dispatch only: read dvv_screen or dvv_wait to see the effect)"},
		{"dvv_type", `{"dispatched":"5 chars"}`, true, "dvv_type: dispatched 5 chars (dispatch only: read dvv_screen or dvv_wait to see the effect)"},
		{"dvv_clipboard", `{"dispatched":"clipboard set"}`, true, "dvv_clipboard: clipboard set"},
		{"dvv_wait", `{"wait":{"until":"screen-stable","settled":true,"elapsedMs":120}}`, true, "dvv_wait: screen-stable settled after 120 ms"},
		{"dvv_wait", `{"wait":{"until":"text","settled":false,"elapsedMs":5000}}`, true, "dvv_wait: text did not settle within 5000 ms (settled: false; not an error)"},
		{"dvv_run", `{"run":{"exitCode":3,"elapsedMs":40}}`, true, "dvv_run: exited with status 3 after 40 ms"},
		{"dvv_run", `{"run":{"signal":"KILL"}}`, true, "dvv_run: killed by signal KILL (no exit status)"},
		{"dvv_run", `{"run":{"timedOut":true}}`, true, "dvv_run: still running when timeoutMs passed; no exit status"},
		{"dvv_run", `{"run":{}}`, true, "dvv_run: finished without an exit status"},
		{"dvv_screen", `{"find":{"matches":[{},{}],"generation":4}}`, true, "dvv_screen: 2 matches read on generation 4 (native pixels; pass the generation to dvv_click)"},
		{"dvv_screen", `{"find":{"matches":[],"lines":[{}],"generation":4}}`, true, "dvv_screen: 1 lines read on generation 4 (native pixels; pass the generation to dvv_click)"},
		{"dvv_wait", `{"expect":{"found":true,"center":{"x":5,"y":6},"score":0.97,"generation":9}}`, true, "dvv_wait: found at center 5,6, score 0.97, generation 9"},
		{"dvv_wait", `{"expect":{"found":true,"score":0.97,"generation":9}}`, true, "dvv_wait: not seen (found: false; not an error), best score 0.97"},
		{"dvv_wait", `{"expect":{"found":false,"score":0.4}}`, true, "dvv_wait: not seen (found: false; not an error), best score 0.40"},
		{"dvv_status", `{"observation":{"limbId":"vnc-1","protocol":"vnc","state":"connected","geometry":{"width":800,"height":600,"generation":2},"lease":{}}}`, true, "dvv_status: limb vnc-1 (vnc) connected, 800x600, generation 2, lease free"},
		{"dvv_status", `{"observation":{"limbId":"vnc-1","protocol":"vnc","state":"connected","geometry":{"width":800,"height":600,"generation":2},"lease":{"held":true,"human_took_over":true}}}`, true, "dvv_status: limb vnc-1 (vnc) connected, 800x600, generation 2, lease held by you, a person took over"},
		{"dvv_control", `{"observation":{"limbId":"rdp-2","protocol":"rdp","state":"connecting","geometry":{"width":1024,"height":768,"generation":1},"lease":{"holder":"ann"}}}`, true, "dvv_control: limb rdp-2 (rdp) connecting, 1024x768, generation 1, lease held by ann"},
		{"dvv_close", `{}`, true, "dvv_close: ok"},
	} {
		got, err := summary(tool(c.tool), []byte(c.body), c.withLine)
		if err != nil || got != c.want {
			t.Errorf("%s %s: %q (%v), want %q", c.tool, c.body, got, err, c.want)
		}
	}
}
