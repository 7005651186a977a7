package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/pkg/wire"
)

// TestRequests checks the request each command line builds.
func TestRequests(t *testing.T) {
	cases := []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"limbs"}, "", `{"op":"limbs"}`},
		{[]string{"status", "vnc-1"}, "", `{"op":"status","limbId":"vnc-1"}`},
		{[]string{"status", "grp-2/0"}, "", `{"op":"status","groupId":"grp-2","member":0}`},
		{[]string{"close", "vnc-1"}, "", `{"op":"close","limbId":"vnc-1"}`},
		{[]string{"reconnect", "vnc-1", "--timeout-ms", "500"}, "", `{"op":"reconnect","limbId":"vnc-1","timeoutMs":500}`},
		{[]string{"signals", "vnc-1"}, "", `{"op":"signals","limbId":"vnc-1"}`},
		{[]string{"history", "vnc-1"}, "", `{"op":"history","limbId":"vnc-1"}`},
		{[]string{"control", "acquire", "vnc-1", "--wait-ms", "2000", "--reason", "tests"}, "", `{"op":"control","limbId":"vnc-1","action":"acquire","reason":"tests","waitMs":2000}`},
		{[]string{"control", "yield", "vnc-1", "--reason", "done"}, "", `{"op":"control","limbId":"vnc-1","action":"yield","reason":"done"}`},
		{[]string{"control", "yield_status", "vnc-1"}, "", `{"op":"control","limbId":"vnc-1","action":"yield_status"}`},
		{[]string{"control", "takeover", "vnc-1"}, "", `{"op":"takeover","limbId":"vnc-1"}`},
		{[]string{"control", "handback", "vnc-1"}, "", `{"op":"handback","limbId":"vnc-1"}`},
		{[]string{"viewer", "vnc-1", "--read-only", "--no-open"}, "", `{"op":"viewer","limbId":"vnc-1","action":"watch"}`},
		{[]string{"share", "vnc-1", "--tcp", "--view-only"}, "", `{"op":"share","limbId":"vnc-1","viewOnly":true,"tcp":true}`},
		{[]string{"share", "vnc-1", "--stop"}, "", `{"op":"share","limbId":"vnc-1","action":"stop"}`},
		{[]string{"pause", "vnc-1"}, "", `{"op":"pause","limbId":"vnc-1","action":"pause"}`},
		{[]string{"pause", "--all"}, "", `{"op":"pause","action":"pause","all":true}`},
		{[]string{"resume"}, "", `{"op":"pause","action":"resume"}`},
		{[]string{"type", "vnc-1", "hello world", "--wpm", "300"}, "", `{"op":"type","limbId":"vnc-1","text":"hello world","wpm":300}`},
		{[]string{"type", "vnc-1", "-"}, "from stdin\n", `{"op":"type","limbId":"vnc-1","text":"from stdin\n"}`},
		{[]string{"key", "vnc-1", "super+r"}, "", `{"op":"key","limbId":"vnc-1","keys":"super+r"}`},
		{[]string{"clipboard", "get", "vnc-1"}, "", `{"op":"clipboard","limbId":"vnc-1","action":"get"}`},
		{[]string{"clipboard", "set", "vnc-1", "abc"}, "", `{"op":"clipboard","limbId":"vnc-1","action":"set","text":"abc"}`},
		{[]string{"clipboard", "set", "vnc-1"}, "piped", `{"op":"clipboard","limbId":"vnc-1","action":"set","text":"piped"}`},
		{[]string{"wait", "vnc-1", "--until", "connected"}, "", `{"op":"wait","limbId":"vnc-1","until":"connected"}`},
		{[]string{"wait", "ssh-1", "--until", "text", "--text", "$ ", "--timeout-ms", "3000", "--quiet-ms", "100"}, "",
			`{"op":"wait","limbId":"ssh-1","text":"$ ","until":"text","quietMs":100,"timeoutMs":3000}`},
		{[]string{"run", "ssh-1", "--timeoutMs", "5000", "uname -a"}, "", `{"op":"run","limbId":"ssh-1","timeoutMs":5000,"command":"uname -a"}`},
		{[]string{"run", "ssh-1", "--timeout-ms", "10", "--cwd", "/tmp", "ls"}, "", `{"op":"run","limbId":"ssh-1","timeoutMs":10,"command":"ls","cwd":"/tmp"}`},
		{[]string{"term", "send", "ssh-1", "ls\n"}, "", `{"op":"term_send","limbId":"ssh-1","text":"ls\n"}`},
		{[]string{"term", "send", "ssh-1", "--hex", "03"}, "", `{"op":"term_send","limbId":"ssh-1","bytesHex":"03"}`},
		{[]string{"term", "read", "ssh-1", "--since", "42"}, "", `{"op":"term_read","limbId":"ssh-1","since":"42"}`},
		{[]string{"files", "ls", "ssh-1"}, "", `{"op":"files","limbId":"ssh-1","action":"list"}`},
		{[]string{"files", "ls", "ssh-1", "/etc"}, "", `{"op":"files","limbId":"ssh-1","action":"list","path":"/etc"}`},
		{[]string{"files", "get", "ssh-1", "~/a.txt", "out/b.txt"}, "", `{"op":"files","limbId":"ssh-1","action":"get","path":"~/a.txt","progress":true}`},
		{[]string{"files", "get", "ssh-1", "~/dir/a.txt"}, "", `{"op":"files","limbId":"ssh-1","action":"get","path":"~/dir/a.txt","progress":true}`},
		{[]string{"files", "get", "ssh-1", "~/a.txt", "-"}, "", `{"op":"files","limbId":"ssh-1","action":"get","path":"~/a.txt","progress":true}`},
		{[]string{"files", "put", "ssh-1", "-", "~/r.txt"}, "hi", `{"op":"files","limbId":"ssh-1","action":"put","path":"~/r.txt","contentBase64":"aGk=","progress":true}`},
		{[]string{"files", "mkdir", "ssh-1", "~/d"}, "", `{"op":"files","limbId":"ssh-1","action":"mkdir","path":"~/d"}`},
		{[]string{"files", "rm", "ssh-1", "~/d", "-r"}, "", `{"op":"files","limbId":"ssh-1","action":"remove","path":"~/d","recursive":true}`},
		{[]string{"files", "mv", "ssh-1", "~/a", "~/b"}, "", `{"op":"files","limbId":"ssh-1","action":"rename","path":"~/a","to":"~/b"}`},
		{[]string{"files", "home", "ssh-1"}, "", `{"op":"files","limbId":"ssh-1","action":"home"}`},
		{[]string{"transfer", "status", "ssh-1"}, "", `{"op":"transfer","limbId":"ssh-1","action":"status"}`},
		{[]string{"transfer", "cancel", "ssh-1", "--id", "t1"}, "", `{"op":"transfer","limbId":"ssh-1","action":"cancel","transferId":"t1"}`},
		{[]string{"hosts"}, "", `{"op":"hosts"}`},
		{[]string{"hosts", "--discovered"}, "", `{"op":"hosts","discovered":true}`},
		{[]string{"hosts", "add", "lab", "--address", "10.0.0.5", "--port", "5901", "--protocol", "vnc", "--ssh-port", "2222", "--ssh-user", "me"}, "",
			`{"op":"host_add","host":{"name":"lab","protocol":"vnc","address":"10.0.0.5","port":5901,"sshPort":2222,"sshUser":"me"}}`},
		{[]string{"hosts", "add", "lab", "--address", "h", "--protocol", "rdp", "--user", "u", "--password-stdin"}, "s3cret\n",
			`{"op":"host_add","host":{"name":"lab","protocol":"rdp","address":"h","user":"u"},"password":"s3cret"}`},
		{[]string{"hosts", "rm", "lab"}, "", `{"op":"host_remove","hostId":"lab"}`},
		{[]string{"hosts", "trust", "127.0.0.1:2222"}, "", `{"op":"host_trust","address":"127.0.0.1","port":2222,"protocol":"ssh"}`},
		{[]string{"hosts", "trust", "10.0.0.5", "--protocol", "rdp"}, "", `{"op":"host_trust","address":"10.0.0.5","protocol":"rdp"}`},
		{[]string{"token", "create", "--role", "operator", "--cap", "exec", "--cap", "files.write,local.files", "--label", "ci"}, "",
			`{"op":"token_create","name":"ci","role":"operator","caps":["exec","files.write","local.files"]}`},
		{[]string{"token", "ls"}, "", `{"op":"token_list"}`},
		{[]string{"token", "revoke", "tok-1"}, "", `{"op":"token_revoke","tokenId":"tok-1"}`},
		{[]string{"group", "open", "--address", "127.0.0.1:5951", "--address", "127.0.0.1:5952", "--protocol", "vnc", "--perceive"}, "",
			`{"op":"group_open","protocol":"vnc","perceive":true,"addresses":["127.0.0.1:5951","127.0.0.1:5952"]}`},
		{[]string{"group", "open", "--host-id", "lab"}, "", `{"op":"group_open","hostIds":["lab"]}`},
		{[]string{"group", "grow", "grp-1", "--address", "h:1", "--protocol", "ssh"}, "", `{"op":"group_grow","groupId":"grp-1","protocol":"ssh","addresses":["h:1"]}`},
		{[]string{"group", "ls"}, "", `{"op":"group_list"}`},
		{[]string{"group", "ls", "grp-1"}, "", `{"op":"group_list","groupId":"grp-1"}`},
		{[]string{"group", "shrink", "grp-1", "2"}, "", `{"op":"group_shrink","groupId":"grp-1","n":2}`},
		{[]string{"group", "close", "grp-1"}, "", `{"op":"group_close","groupId":"grp-1"}`},
		{[]string{"group", "run", "grp-1", "wait", "--args", `{"until":"connected"}`}, "", `{"op":"group_run","groupId":"grp-1","action":"wait","arguments":{"until":"connected"}}`},
		{[]string{"shutdown"}, "", `{"op":"shutdown"}`},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			req, code, _, stderr := answered(t, c.stdin, nil, c.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if got := requestJSON(t, req); got != c.want {
				t.Errorf("request\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestUsageErrors: mistakes on the command line exit 2 and send nothing.
func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"bogus"},
		{"control", "bogus"},
		{"files", "cat", "x"},
		{"hosts", "bogus"},
		{"status"},
		{"status", "a", "b"},
		{"open"},
		{"click", "vnc-1", "1"},
		{"wait", "vnc-1"},
		{"run", "ssh-1", "ls"},
		{"term", "send", "ssh-1"},
		{"term", "send", "ssh-1", "x", "--hex", "03"},
		{"term", "send", "ssh-1", "--hex", "zz"},
		{"files", "put", "ssh-1", "a", "b", "--mode", "999"},
		{"hosts", "add", "lab", "--protocol", "vnc"},
		{"hosts", "add", "lab", "--address", "a"},
		{"hosts", "add", "lab", "--address", "a", "--protocol", "vnc", "--password-stdin"},
		{"hosts", "trust", "a", "--protocol", "ftp"},
		{"token", "create"},
		{"group", "open"},
		{"group", "open", "--address", "a:1"},
		{"group", "shrink", "grp-1", "0"},
		{"group", "run", "grp-1", "wait", "--args", "{"},
		{"control", "release", "vnc-1", "--wait-ms", "5"},
		{"screen", "vnc-1", "--region", "1,2"},
		{"status", "vnc-1", "--no-such-flag"},
	} {
		req, code, _, stderr := sent(t, args...)
		if code != wire.ExitUsage || req != nil {
			t.Errorf("%q: exit %d, sent %s; want exit 2 and nothing sent (stderr %q)", args, code, requestJSON(t, req), stderr)
		}
		if !strings.HasPrefix(stderr, "dvv: ") {
			t.Errorf("%q: stderr %q does not say what is wrong", args, stderr)
		}
	}
}

// TestExitStatus: each wire code exits with its class, and --json prints
// the failure as one object.
func TestExitStatus(t *testing.T) {
	for _, ci := range wire.Codes {
		fail := func(r *sentReq) (wire.Answer, error) {
			return nil, wire.Errorf(ci.Code, "test failure")
		}
		_, code, out, stderr := answered(t, "", fail, "status", "vnc-1")
		if code != ci.Exit {
			t.Errorf("%s: exit %d, want %d", ci.Code, code, ci.Exit)
		}
		if out != "" || !strings.Contains(stderr, string(ci.Code)) || !strings.Contains(stderr, "next: ") {
			t.Errorf("%s: stdout %q stderr %q", ci.Code, out, stderr)
		}
		_, code, out, _ = answered(t, "", fail, "status", "vnc-1", "--json")
		var resp wire.Reply
		if err := json.Unmarshal([]byte(out), &resp); err != nil || resp.Code != ci.Code || code != ci.Exit || strings.Count(out, "\n") != 1 {
			t.Errorf("%s --json: exit %d, stdout %q (%v)", ci.Code, code, out, err)
		}
	}
}

func TestWaitNotSettled(t *testing.T) {
	answer := func(settled bool) func(*sentReq) (wire.Answer, error) {
		return func(r *sentReq) (wire.Answer, error) {
			return &wire.WaitAnswer{Wait: &wire.WaitResult{Until: r.Until, Settled: settled, ElapsedMs: 10, Detail: "d"}}, nil
		}
	}
	if _, code, out, _ := answered(t, "", answer(true), "wait", "v", "--until", "screen-stable"); code != 0 || !strings.Contains(out, "settled") {
		t.Errorf("settled: exit %d, %q", code, out)
	}
	if _, code, _, stderr := answered(t, "", answer(false), "wait", "v", "--until", "screen-stable"); code != ExitNotSettled || !strings.Contains(stderr, "not settled") {
		t.Errorf("not settled: exit %d, %q", code, stderr)
	}
	_, code, out, _ := answered(t, "", answer(false), "wait", "v", "--until", "idle", "--json")
	var resp wire.WaitAnswer
	if json.Unmarshal([]byte(out), &resp) != nil || resp.Wait == nil || resp.Wait.Settled || code != ExitNotSettled {
		t.Errorf("not settled --json: exit %d, %q", code, out)
	}
}

func TestRunOutput(t *testing.T) {
	seven := 7
	answer := func(r *sentReq) (wire.Answer, error) {
		return &wire.RunAnswer{Run: &wire.RunResult{ExitCode: &seven, Stdout: "out\n", StderrBase64: "/2Vycg=="}}, nil
	}
	_, code, out, stderr := answered(t, "", answer, "run", "ssh-1", "--timeout-ms", "100", "false")
	if code != 7 || out != "out\n" || stderr != "\xfferr" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}

// TestPasswordNeverPrinted: the password reaches the request and nothing else.
func TestPasswordNeverPrinted(t *testing.T) {
	answer := func(r *sentReq) (wire.Answer, error) {
		return &wire.HostAddAnswer{Hosts: []wire.Host{{ID: "h-1", Name: "lab", Protocol: "vnc", Address: "a", Port: 5900, HasCredential: true, Source: "saved"}}}, nil
	}
	for _, extra := range [][]string{nil, {"--json"}} {
		args := append([]string{"hosts", "add", "lab", "--address", "a", "--protocol", "vnc", "--password-stdin"}, extra...)
		req, code, out, stderr := answered(t, "pa55word-xyz\r\n", answer, args...)
		if code != 0 || req.Password != "pa55word-xyz" {
			t.Fatalf("exit %d, password %q", code, req.Password)
		}
		if strings.Contains(out+stderr, "pa55word") {
			t.Errorf("the password was printed: %q %q", out, stderr)
		}
	}
}

func TestOpenPrintsOnlyTheID(t *testing.T) {
	answer := func(r *sentReq) (wire.Answer, error) {
		return &wire.OpenAnswer{LimbID: "vnc-1a2b3c4d", Observation: &wire.Observation{LimbID: "vnc-1a2b3c4d", Protocol: "vnc", Address: "127.0.0.1", Port: 5951, State: "connecting"}}, nil
	}
	_, code, out, stderr := answered(t, "", answer, "open", "127.0.0.1:5951", "--protocol", "vnc", "--perceive", "--wait=false")
	if code != 0 || out != "vnc-1a2b3c4d\n" || !strings.Contains(stderr, "dvv wait vnc-1a2b3c4d --until connected") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}

// TestClickText: click --text reads the member's screen, then clicks the
// one match's centre on that member, fenced with the generation it was
// read at and carrying --verify-ms.
func TestClickText(t *testing.T) {
	var sentOps []string
	answer := func(r *sentReq) (wire.Answer, error) {
		sentOps = append(sentOps, requestJSON(t, r))
		if r.Op == wire.OpFind {
			m := wire.TextMatch{Text: "OK", Generation: 4}
			m.Center.X, m.Center.Y = 30, 40
			return &wire.FindAnswer{Find: &wire.FindResult{Matches: []wire.TextMatch{m}}}, nil
		}
		return &wire.ClickAnswer{Dispatched: "clicked"}, nil
	}
	_, code, _, stderr := answered(t, "", answer, "click", "grp-1/2", "--text", "OK", "--verify-ms", "250")
	want := []string{
		`{"op":"find","groupId":"grp-1","member":2,"text":"OK"}`,
		`{"op":"click","groupId":"grp-1","member":2,"action":"click","generation":4,"x":30,"y":40,"verifyMs":250}`,
	}
	if code != 0 || strings.Join(sentOps, "\n") != strings.Join(want, "\n") {
		t.Fatalf("exit %d %s\nsent\n%s\nwant\n%s", code, stderr, strings.Join(sentOps, "\n"), strings.Join(want, "\n"))
	}
}

// TestCloseNamesALimb: close takes a limb id, not GROUP/MEMBER (a group
// closes with `group close`); nothing is sent.
func TestCloseNamesALimb(t *testing.T) {
	req, code, _, stderr := sent(t, "close", "grp-1/0")
	if req != nil || code != wire.ExitUsage || !strings.Contains(stderr, "group close") {
		t.Fatalf("sent %v, exit %d, stderr %q", req, code, stderr)
	}
}

// TestJSONIsTheAnswerLine: --json prints dvvd's answer line as it came,
// id included, a success or a failure; the human output reads the same
// line as the op's typed answer.
func TestJSONIsTheAnswerLine(t *testing.T) {
	for _, line := range []string{
		`{"result":"status","id":4,"limbId":"vnc-1","observation":{"schema":"dvv.observation/1","limbId":"vnc-1","state":"connected"}}`,
		`{"result":"error","id":4,"code":"LIMB_GONE","message":"no limb \"vnc-1\"","next":"call limbs"}`,
	} {
		for _, json := range []bool{true, false} {
			var out, errOut strings.Builder
			e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, ctx: context.Background(),
				getenv: func(string) string { return "" },
				send: func(wire.Enveloped) (*wire.Reply, error) {
					r, err := wire.ReadReply([]byte(line))
					if err != nil {
						t.Fatal(err)
					}
					if we := r.Err(); we != nil {
						return r, we
					}
					return r, nil
				}}
			args := []string{"status", "vnc-1"}
			if json {
				args = append(args, "--json")
			}
			root := newRoot(e)
			root.SetArgs(args)
			code := e.finish(root.ExecuteContext(context.Background()))
			switch {
			case json && out.String() != line+"\n":
				t.Errorf("--json printed %q, dvvd wrote %q", out.String(), line)
			case !json && strings.Contains(line, `"error"`) && (code == 0 || !strings.Contains(errOut.String(), "LIMB_GONE")):
				t.Errorf("failure: exit %d, stderr %q", code, errOut.String())
			case !json && !strings.Contains(line, `"error"`) && (code != 0 || !strings.Contains(out.String(), "connected")):
				t.Errorf("status: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
			}
		}
	}
}
