package system_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// mcpScriptAnswer is dvv_script's structuredContent.
type mcpScriptAnswer struct {
	Result string       `json:"result"`
	Steps  []scriptStep `json:"steps"`
	Error  *wire.Error  `json:"error"`
}

// startScriptBridge starts the dvvmcp binary with --tools script on d's
// socket and connects the Go SDK's client to it over stdio.
func startScriptBridge(t *testing.T, d *daemon, name string) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(dvvmcpBin, "--socket", d.socket, "--tools", "script")
	cmd.Env = d.env
	c := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// toolCall calls a tool and fails the test on a protocol error.
func toolCall(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

func mcpText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// mcpScript calls dvv_script and reads its answer.
func mcpScript(t *testing.T, cs *sdk.ClientSession, args map[string]any) (*sdk.CallToolResult, mcpScriptAnswer) {
	t.Helper()
	res := toolCall(t, cs, "dvv_script", args)
	raw, _ := json.Marshal(res.StructuredContent)
	var a mcpScriptAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatalf("dvv_script's structuredContent %s: %v", raw, err)
	}
	return res, a
}

// mcpOpenVNC opens an Xvnc desktop through the bridge, as an agent does.
func mcpOpenVNC(t *testing.T, cs *sdk.ClientSession) (*testbed.VNC, string) {
	t.Helper()
	x := testbed.StartXvnc(t, testbed.XvncOptions{})
	res := toolCall(t, cs, "dvv_open", map[string]any{"address": "127.0.0.1", "port": x.Port, "protocol": "vnc", "perceive": true})
	var open struct {
		LimbID string `json:"limbId"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if json.Unmarshal(raw, &open); res.IsError || open.LimbID == "" {
		t.Fatalf("dvv_open: %s", mcpText(res))
	}
	if res := toolCall(t, cs, "dvv_wait", map[string]any{"limbId": open.LimbID, "until": "connected", "timeoutMs": 20000}); res.IsError {
		t.Fatalf("dvv_wait: %s", mcpText(res))
	}
	return x, open.LimbID
}

// TestMCPScriptDrivesXtermAndXcalc: an agent runs 16 steps in one
// dvv_script call through the dvvmcp binary (--tools script) over stdio,
// against a real dvvd and Xvnc with an xterm and xcalc. What the xterm's
// cat received and what xcalc computed are read on the X server's side;
// the report has a line per step and no picture; the lease the run took
// is given back at its end. A path to a saved script runs the same way.
func TestMCPScriptDrivesXtermAndXcalc(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "xterm", "xdotool", "xcalc", "xclip")
	d := startDaemon(t, "")
	cs := startScriptBridge(t, d, "script-agent")
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 26 || !slices.ContainsFunc(tools.Tools, func(tl *sdk.Tool) bool { return tl.Name == "dvv_script" }) {
		t.Fatalf("tools/list with --tools script: %v, %d tools", err, len(tools.Tools))
	}
	x, limb := mcpOpenVNC(t, cs)
	typed := filepath.Join(t.TempDir(), "typed")
	x.Background(t, "xterm", "-geometry", "60x20+0+0", "-e", "sh", "-c",
		fmt.Sprintf("stty -echo -icanon; touch %s.ready; exec cat > %s", typed, typed))
	testbed.WaitFile(t, typed+".ready", 15*time.Second)
	x.Background(t, "xcalc", "-geometry", "+500+0")
	testbed.Eventually(t, 10*time.Second, "xcalc mapped", func() bool {
		return x.Command("xdotool", "search", "--onlyvisible", "--class", "xcalc").Run() == nil
	})
	dir := t.TempDir()
	steps := []string{
		"wait --until screen-stable --quiet-ms 300 --timeout-ms 5000",
		"screen --out ${dir}/start.png",
		"click 100 100 --action move      # focus follows the pointer: the xterm",
		`type "hello ${who}"`,
		"key Return",
		"wait --until screen-stable --quiet-ms 200 --timeout-ms 5000",
		`type 'second $line'`,
		"key Return",
		"sleep 100ms",
		"# over xcalc's keys",
		"click 600 200 --action move",
		`type "12*3="`,
		"wait --until screen-stable --quiet-ms 200 --timeout-ms 5000",
		"click 620 17                     # xcalc's display: it takes the selection",
		"status",
		"screen --out ${dir}/end.png",
		"key Escape",
	}
	res, a := mcpScript(t, cs, map[string]any{"limbId": limb, "steps": steps, "vars": map[string]string{"who": "world", "dir": dir}})
	if res.IsError || a.Result != "script" {
		t.Fatalf("dvv_script failed: %s", mcpText(res))
	}
	if len(a.Steps) != 16 {
		t.Fatalf("want a report of 16 steps (a comment line is none), got %d:\n%s", len(a.Steps), mcpText(res))
	}
	for _, s := range a.Steps {
		if s.Status == "failed" || s.Status == "" {
			t.Errorf("step %d %q: %s", s.Line, s.Step, s.Status)
		}
	}
	if a.Steps[3].Line != 4 || a.Steps[3].Step != `type "hello ${who}"` || a.Steps[10].Line != 12 {
		t.Errorf("the report names the steps by their line: %+v", a.Steps)
	}
	for _, c := range res.Content {
		if _, ok := c.(*sdk.TextContent); !ok {
			t.Errorf("the answer carries a %T: a script's report is text", c)
		}
	}
	whole, _ := json.Marshal(res)
	printed := 0
	for _, s := range a.Steps {
		printed += len(s.Output)
	}
	t.Logf("dvv_script's answer: %d bytes for %d steps, of which the steps printed %d (twice: text and structuredContent)", len(whole), len(a.Steps), printed)
	if !strings.Contains(mcpText(res), "16 steps passed") {
		t.Errorf("the text does not sum up: %s", mcpText(res))
	}
	testbed.Eventually(t, 10*time.Second, "the xterm's text", func() bool {
		b, _ := os.ReadFile(typed)
		return string(b) == "hello world\nsecond $line\n"
	})
	if b, _ := os.ReadFile(typed); string(b) != "hello world\nsecond $line\n" {
		t.Errorf("the xterm received %q", b)
	}
	if got := calcShows(t, x.Display); got != "36" {
		t.Errorf("xcalc shows %q, want 36", got)
	}
	for _, f := range []string{"start.png", "end.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("screen --out: %v", err)
		}
	}
	if o := status(t, d, "shell-b", limb); o.Lease.Holder != "" {
		t.Errorf("the lease outlived the script: %+v", o.Lease)
	}

	// A saved script by its absolute path; ${script_dir} is its directory.
	saved := writeScript(t, "click 100 100 --action move\ntype \"${word}\"\nkey Return\nscreen --out ${script_dir}/shot.png\n")
	res, a = mcpScript(t, cs, map[string]any{"limbId": limb, "path": saved, "vars": map[string]string{"word": "third"}})
	if res.IsError || len(a.Steps) != 4 {
		t.Fatalf("dvv_script path: %s", mcpText(res))
	}
	testbed.Eventually(t, 10*time.Second, "the third line", func() bool {
		b, _ := os.ReadFile(typed)
		return string(b) == "hello world\nsecond $line\nthird\n"
	})
	if _, err := os.Stat(filepath.Join(filepath.Dir(saved), "shot.png")); err != nil {
		t.Errorf("${script_dir}: %v", err)
	}
	// Refusals before any step runs: coded, with a next move, nothing typed.
	for _, args := range []map[string]any{
		{"limbId": limb, "path": "relative.dvv"},
		{"limbId": limb},
		{"limbId": limb, "steps": []string{"type a", "frobnicate 3"}},
		{"limbId": limb, "steps": []string{"type a\ntype b"}},
		{"limbId": limb, "steps": []string{"type a"}, "colour": "red"},
	} {
		res, a := mcpScript(t, cs, args)
		if !res.IsError || a.Error == nil || a.Error.Code != wire.BadRequest || a.Error.Next == "" || len(a.Steps) != 0 {
			t.Errorf("%v: want BAD_REQUEST with a next move and no step run, got %s", args, mcpText(res))
		}
	}
	if b, _ := os.ReadFile(typed); string(b) != "hello world\nsecond $line\nthird\n" {
		t.Errorf("a refused script typed: %q", b)
	}
}

// TestMCPScriptStopsAtTheFence: through dvvmcp, a key Return that scrolls
// a full xterm arms the typing fence and the script's next type is refused
// (SCREEN_CHANGED): the answer is an error naming that line, the report
// ends there, nothing after it reaches the xterm, and the screenshot is in
// artifacts. The agent held the lease before the call, so the run used it
// and left it held.
func TestMCPScriptStopsAtTheFence(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "xterm", "xdotool")
	d := startDaemon(t, "")
	cs := startScriptBridge(t, d, "fence-agent")
	x, limb := mcpOpenVNC(t, cs)
	out := filepath.Join(t.TempDir(), "typed")
	ready := out + ".ready"
	fill := `i=0; while [ $i -lt 100 ]; do if [ $((i % 2)) -eq 0 ]; then printf '%0128d\n' 0; else printf '%128s\n' '' | tr ' ' '#'; fi; i=$((i+1)); done`
	x.Background(t, "xterm", "-geometry", "130x44+0+0", "-e", "sh", "-c",
		fmt.Sprintf("stty -icanon; %s; touch %s; exec cat > %s", fill, ready, out))
	testbed.WaitFile(t, ready, 15*time.Second)
	testbed.Eventually(t, 10*time.Second, "the xterm focused", func() bool {
		o, err := x.Command("xdotool", "search", "--class", "xterm").Output()
		return err == nil && len(strings.Fields(string(o))) > 0 &&
			x.Command("xdotool", "windowfocus", "--sync", strings.Fields(string(o))[0]).Run() == nil
	})
	if res := toolCall(t, cs, "dvv_control", map[string]any{"limbId": limb, "action": "acquire", "reason": "agent"}); res.IsError {
		t.Fatalf("acquire: %s", mcpText(res))
	}
	artifacts := filepath.Join(t.TempDir(), "artifacts")
	res, a := mcpScript(t, cs, map[string]any{"limbId": limb, "artifacts": artifacts, "steps": []string{
		"wait --until screen-stable --quiet-ms 300 --timeout-ms 5000",
		"key Return",
		"wait --until screen-stable --quiet-ms 300 --timeout-ms 5000 # a read: type goes through",
		"type first",
		"key Return",
		"sleep 1s",
		"type second # nothing read since the scroll: the fence holds",
		"type third",
	}})
	if !res.IsError || a.Result != wire.ResultError || a.Error == nil || a.Error.Code != wire.ScreenChanged || a.Error.Next == "" ||
		!strings.Contains(a.Error.Message, "line 7") {
		t.Fatalf("want SCREEN_CHANGED at line 7: %s", mcpText(res))
	}
	if len(a.Steps) != 7 {
		t.Fatalf("want 7 steps reported (the 7th failed, the 8th not run), got %+v", a.Steps)
	}
	last := a.Steps[6]
	if last.Line != 7 || last.Status != "failed" || last.Code != string(wire.ScreenChanged) || last.Next == "" {
		t.Errorf("the last step: %+v", last)
	}
	testbed.Eventually(t, 10*time.Second, "the xterm's input", func() bool {
		b, _ := os.ReadFile(out)
		return string(b) == "\nfirst\n"
	})
	if b, _ := os.ReadFile(out); string(b) != "\nfirst\n" {
		t.Fatalf("the xterm received %q: the script typed past the fence", b)
	}
	if _, err := os.Stat(filepath.Join(artifacts, "line-7.png")); err != nil || last.Screenshot == "" {
		t.Errorf("no screenshot of the failure: %v %+v", err, last)
	}
	if o := status(t, d, "shell-b", limb); o.Lease.Holder != "fence-agent" {
		t.Errorf("the agent's own lease was not left held: %+v", o.Lease)
	}
}
