package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/pkg/wire"
)

// sentReq is a request line as these tests read it: the fields they look
// at, by JSON name, and the line itself.
type sentReq struct {
	Op            string          `json:"op"`
	Action        string          `json:"action"`
	Until         string          `json:"until"`
	Path          string          `json:"path"`
	To            string          `json:"to"`
	From          string          `json:"from"`
	ContentBase64 string          `json:"contentBase64"`
	Mode          *int            `json:"mode"`
	Out           string          `json:"out"`
	OutDir        string          `json:"outDir"`
	Form          string          `json:"form"`
	Format        string          `json:"format"`
	Scale         *float64        `json:"scale"`
	Region        *wire.Region    `json:"region"`
	Password      string          `json:"password"`
	Protocol      string          `json:"protocol"`
	Arguments     json.RawMessage `json:"arguments"`

	line []byte
}

// lineOf reads what the CLI sent as its line.
func lineOf(t *testing.T, a wire.Enveloped) *sentReq {
	t.Helper()
	line, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	r := &sentReq{line: line}
	if err := json.Unmarshal(line, r); err != nil {
		t.Fatal(err)
	}
	return r
}

// sent runs a command line through the real command tree and returns the
// request it would send (answered with an empty success), its exit status
// and its output.
func sent(t *testing.T, args ...string) (req *sentReq, code int, stdout, stderr string) {
	t.Helper()
	return answered(t, "", nil, args...)
}

// emptyReply is op's success with no field set.
func emptyReply(op string) *wire.Reply {
	return &wire.Reply{Result: op, Line: []byte(`{"result":"` + op + `"}`)}
}

// answered is sent with stdin and dvvd's answer given (nil: an empty success).
func answered(t *testing.T, stdin string, answer func(*sentReq) (wire.Answer, error), args ...string) (req *sentReq, code int, stdout, stderr string) {
	t.Helper()
	var out, errOut strings.Builder
	e := &env{stdin: strings.NewReader(stdin), ctx: context.Background(),
		getenv: func(string) string { return "" }, completing: len(args) > 0 && args[0] == "__complete",
		send: func(a wire.Enveloped) (*wire.Reply, error) {
			r := lineOf(t, a)
			req = r
			if answer == nil {
				return emptyReply(r.Op), nil
			}
			ans, err := answer(r)
			if err != nil {
				return nil, err
			}
			if ans == nil {
				return emptyReply(r.Op), nil
			}
			line, err := wire.AnswerLine(nil, ans)
			if err != nil {
				t.Fatal(err)
			}
			return wire.ReadReply(line)
		}}
	e.humanStreams(&out, &errOut) // as Run does
	root := newRoot(e)
	root.SetArgs(args)
	code = e.finish(root.ExecuteContext(context.Background()))
	return req, code, out.String(), errOut.String()
}

// requestJSON is the socket line of what a command sent (a *sentReq from
// the send hook) or built (an op's wire.*Args).
func requestJSON(t *testing.T, v any) string {
	t.Helper()
	switch v := v.(type) {
	case *sentReq:
		if v != nil {
			return string(v.line)
		}
	case wire.Args:
		return string(lineOf(t, wire.Envelop(v)).line)
	}
	return "<nothing sent>"
}

func TestOpenRequest(t *testing.T) {
	cases := []struct {
		arg       string
		o         openOptions
		portSet   bool
		slotSet   bool
		want      string // request JSON, or "usage" for a usage error
		wantUsage string
	}{
		{arg: "127.0.0.1:5951", o: openOptions{protocol: "vnc", perceive: true}, want: `{"op":"open","address":"127.0.0.1","port":5951,"protocol":"vnc","perceive":true}`},
		{arg: "127.0.0.1", o: openOptions{protocol: "vnc"}, want: `{"op":"open","address":"127.0.0.1","protocol":"vnc"}`},
		{arg: "127.0.0.1", o: openOptions{protocol: "rdp", port: 3390}, portSet: true, want: `{"op":"open","address":"127.0.0.1","port":3390,"protocol":"rdp"}`},
		{arg: "127.0.0.1:3390", o: openOptions{protocol: "rdp", port: 3390}, portSet: true, want: `{"op":"open","address":"127.0.0.1","port":3390,"protocol":"rdp"}`},
		{arg: "127.0.0.1:3391", o: openOptions{protocol: "rdp", port: 3390}, portSet: true, wantUsage: "conflicts"},
		{arg: "vnc://lab.local:5901", want: `{"op":"open","address":"lab.local","port":5901,"protocol":"vnc"}`},
		{arg: "ssh://build", o: openOptions{slot: 2}, slotSet: true, want: `{"op":"open","address":"build","protocol":"ssh","slot":2}`},
		{arg: "ssh://build", o: openOptions{protocol: "vnc"}, wantUsage: "conflicts"},
		{arg: "ws://127.0.0.1:6080/websockify", want: `{"op":"open","address":"ws://127.0.0.1:6080/websockify","protocol":"vnc"}`},
		{arg: "[::1]:5900", o: openOptions{protocol: "vnc"}, want: `{"op":"open","address":"::1","port":5900,"protocol":"vnc"}`},
		{arg: "::1", o: openOptions{protocol: "vnc"}, want: `{"op":"open","address":"::1","protocol":"vnc"}`},
		{arg: "lab", o: openOptions{perceive: true}, want: `{"op":"open","hostId":"lab","perceive":true}`},
		{arg: "h-1a2b3c4d", want: `{"op":"open","hostId":"h-1a2b3c4d"}`},
		{arg: "lab", o: openOptions{port: 1}, portSet: true, wantUsage: "--port"},
		{arg: "127.0.0.1:5951", wantUsage: "--protocol"},
		{arg: "127.0.0.1:99999", o: openOptions{protocol: "vnc"}, wantUsage: "port"},
		{arg: "127.0.0.1", o: openOptions{protocol: "telnet"}, wantUsage: "vnc, rdp or ssh"},
		{arg: "gopher://x", wantUsage: "scheme"},
		{arg: "pat@build.lan", o: openOptions{protocol: "ssh"}, want: `{"op":"open","address":"pat@build.lan","protocol":"ssh"}`},
		{arg: "ssh://pat@build.lan:2222", want: `{"op":"open","address":"pat@build.lan","port":2222,"protocol":"ssh"}`},
		{arg: "build.lan", o: openOptions{protocol: "ssh", user: "pat"}, want: `{"op":"open","address":"pat@build.lan","protocol":"ssh"}`},
		{arg: "ci@build.lan", o: openOptions{protocol: "ssh", user: "pat"}, wantUsage: "conflicts"},
		{arg: "pat@build.lan", wantUsage: "--protocol ssh"},
		{arg: "pat@127.0.0.1", o: openOptions{protocol: "vnc"}, wantUsage: "user"},
		{arg: "127.0.0.1", o: openOptions{protocol: "vnc", user: "pat"}, wantUsage: "SSH"},
		{arg: "127.0.0.1:secret99", o: openOptions{protocol: "vnc"}, wantUsage: "port"},
		{arg: "vnc://pat%3Asecret99@127.0.0.1", wantUsage: "percent"},
		{arg: "ws://127.0.0.1/websockify?password=secret99", wantUsage: "query"},
	}
	for _, c := range cases {
		t.Run(c.arg, func(t *testing.T) {
			req, err := c.o.request(c.arg, c.portSet, c.slotSet)
			if c.wantUsage != "" {
				// A usage error, or dvvd's own BAD_REQUEST for an address
				// (hosts.ParseAddress), found before anything is sent.
				ue, isUsage := err.(*usageError)
				we, isBad := err.(*wire.Error)
				if !(isUsage && strings.Contains(ue.msg, c.wantUsage) || isBad && we.Code == wire.BadRequest && strings.Contains(we.Message, c.wantUsage)) {
					t.Fatalf("want a usage error about %q, got %v", c.wantUsage, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := requestJSON(t, req); got != c.want {
				t.Errorf("request\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestClickRequest(t *testing.T) {
	cases := []struct {
		args      []string
		want      string
		wantUsage string
	}{
		{[]string{"vnc-1", "10", "20"}, `{"op":"click","limbId":"vnc-1","action":"click","generationFrom":"last-read","x":10,"y":20}`, ""},
		{[]string{"vnc-1", "10", "20", "--generation", "3", "--action", "double"}, `{"op":"click","limbId":"vnc-1","action":"double","generation":3,"x":10,"y":20}`, ""},
		{[]string{"vnc-1", "1", "2", "--action", "drag", "--to-x", "30", "--to-y", "40", "--button", "right"},
			`{"op":"click","limbId":"vnc-1","action":"drag","generationFrom":"last-read","x":1,"y":2,"toX":30,"toY":40,"button":"right"}`, ""},
		{[]string{"vnc-1", "1", "2", "--action", "scroll", "--direction", "down", "--clicks", "3"},
			`{"op":"click","limbId":"vnc-1","action":"scroll","generationFrom":"last-read","x":1,"y":2,"direction":"down","clicks":3}`, ""},
		{[]string{"vnc-1", "1", "2", "--modifiers", "ctrl,shift"},
			`{"op":"click","limbId":"vnc-1","action":"click","generationFrom":"last-read","x":1,"y":2,"modifiers":["ctrl","shift"]}`, ""},
		{[]string{"grp-1/2", "1", "2", "--generation", "1"}, `{"op":"click","groupId":"grp-1","member":2,"action":"click","generation":1,"x":1,"y":2}`, ""},
		{[]string{"vnc-1", "1", "2", "--action", "drag", "--to-x", "3"}, "", "--to-y"},
		{[]string{"vnc-1", "1", "2", "--action", "scroll"}, "", "--direction"},
		{[]string{"vnc-1", "1", "2", "--clicks", "2"}, "", "scroll only"},
		{[]string{"vnc-1", "1", "2", "--to-x", "2"}, "", "drag only"},
		{[]string{"vnc-1", "1", "2", "--action", "hover"}, "", "--action"},
		{[]string{"vnc-1", "x", "2"}, "", "whole number"},
		{[]string{"grp-1/x", "1", "2"}, "", "GROUP/MEMBER"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			req, code, _, stderr := sent(t, append([]string{"click"}, c.args...)...)
			if c.wantUsage != "" {
				if code != wire.ExitUsage || req != nil || !strings.Contains(stderr, c.wantUsage) {
					t.Fatalf("want exit 2 about %q with nothing sent; got %d, %s, %q", c.wantUsage, code, requestJSON(t, req), stderr)
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if got := requestJSON(t, req); got != c.want {
				t.Errorf("request\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestScreenRequest(t *testing.T) {
	build := func(args ...string) (*sentReq, error) {
		req, code, _, stderr := sent(t, append([]string{"screen"}, args...)...)
		if code != 0 {
			return nil, fmt.Errorf("exit %d: %s", code, stderr)
		}
		return req, nil
	}
	// The CLI writes the image itself: no request names a local path.
	req, err := build("vnc-1")
	if err != nil || req.Out != "" || req.Scale != nil || req.Form != "" || req.Format != "" {
		t.Errorf("default screen: %+v %v", req, err)
	}
	req, err = build("vnc-1", "--scale", "0.5", "--jpeg")
	if err != nil || req.Out != "" || *req.Scale != 0.5 || req.Format != "jpeg" {
		t.Errorf("scaled jpeg: %+v %v", req, err)
	}
	req, err = build("vnc-1", "--region", "1,2,30,40", "--out", "x/y.png")
	if err != nil || req.Form != "region" || *req.Region != (wire.Region{X: 1, Y: 2, W: 30, H: 40}) || req.Out != "" {
		t.Errorf("region: %+v %v", req, err)
	}
	req, err = build("vnc-1", "--out", "-", "--form", "damage-crop")
	if err != nil || req.Out != "" || req.Form != "damage-crop" {
		t.Errorf("stdout damage-crop: %+v %v", req, err)
	}
	if _, err := build("vnc-1", "--region", "1,2,3"); err == nil {
		t.Error("three-number region accepted")
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]int{"0644": 0o644, "644": 0o644, "0o755": 0o755, "7777": 0o7777, "0": 0} {
		if got, err := parseMode(in); err != nil || got != want {
			t.Errorf("parseMode(%q) = %o, %v; want %o", in, got, err, want)
		}
	}
	for _, in := range []string{"", "9", "0x1ff", "17777", "-1", "rwx"} {
		if _, err := parseMode(in); err == nil {
			t.Errorf("parseMode(%q) accepted", in)
		}
	}
}

func TestGroupRunRequest(t *testing.T) {
	req, err := groupRunRequest("grp-1", "screen", `{"scale":0.5}`, "shots", false)
	if err != nil || req.OutDir == "" || !filepath.IsAbs(req.OutDir) || string(req.Arguments) != `{"scale":0.5}` {
		t.Errorf("screen: %+v %v", req, err)
	}
	if req, err := groupRunRequest("grp-1", "status", "", ".", false); err != nil || req.OutDir != "" {
		t.Errorf("status must not carry outDir: %+v %v", req, err)
	}
	if _, err := groupRunRequest("grp-1", "status", "", "x", true); err == nil {
		t.Error("--out-dir accepted for status")
	}
	if _, err := groupRunRequest("grp-1", "wait", `[1]`, ".", false); err == nil {
		t.Error("non-object --args accepted")
	}
}

func TestRunStatus(t *testing.T) {
	code := func(r *wire.RunResult) int {
		err := runStatus(r)
		if err == nil {
			return 0
		}
		return err.(*exitStatus).code
	}
	three := 3
	zero := 0
	if c := code(&wire.RunResult{ExitCode: &zero}); c != 0 {
		t.Errorf("exit 0 -> %d", c)
	}
	if c := code(&wire.RunResult{ExitCode: &three}); c != 3 {
		t.Errorf("exit 3 -> %d", c)
	}
	if c := code(&wire.RunResult{TimedOut: true}); c != ExitRunTimedOut {
		t.Errorf("timed out -> %d", c)
	}
	if c := code(&wire.RunResult{Signal: "KILL"}); c != 137 {
		t.Errorf("KILL -> %d", c)
	}
	if c := code(&wire.RunResult{Signal: "BOGUS"}); c != ExitRunUnknown {
		t.Errorf("unknown signal -> %d", c)
	}
}
