//go:build bench

package bench

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dvvhq/dvv/internal/testbed"
)

// TestToolAnswers drives the dvvmcp binary (--tools all) with the Go MCP
// SDK's client over stdio against a 1920x1080 Xvnc desktop and measures,
// per tool, what its answer costs an agent (bytes of the tools/call result
// as JSON, images included as base64) and its p50 time, client to client.
// It prints the table of docs/tools.md ("Measured"); with
// DVV_BENCH_TOOLS_OUT=path it also writes it there
// (pkg/mcp/tools_measured.md, which `make docs` puts into docs/tools.md).
func TestToolAnswers(t *testing.T) {
	testbed.Need(t, "tesseract", "xmessage", "xdotool")
	ensureWorker(t)
	out, err := exec.Command("go", "build", "-o", binDir+"/", "../../cmd/dvvmcp").CombinedOutput()
	if err != nil {
		t.Fatalf("build dvvmcp: %v\n%s", err, out)
	}
	x := testbed.StartXvnc(t, testbed.XvncOptions{Width: 1920, Height: 1080})
	desktopScene(t, x.Display)
	testbed.Start(t, "xmessage", x.Command("xmessage", "-title", "dialog", "-geometry", "+800+200", "-buttons", "Keep,Discard", "Save the report before closing?"))
	x.WaitStill(t, "xmessage")
	// A second, small desktop for the tools that open and close limbs and
	// groups, and an sshd for the terminal tools.
	small := testbed.StartXvnc(t, testbed.XvncOptions{Width: 640, Height: 480})
	sshd := testbed.StartSSHD(t)
	d := startDvvdHome(t, sshd.Home)

	ctx := context.Background()
	cmd := exec.Command(filepath.Join(binDir, "dvvmcp"), "--socket", d.socket, "--tools", "all")
	cmd.Stderr = os.Stderr
	c := sdk.NewClient(&sdk.Implementation{Name: "bench-agent", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(name string, args map[string]any) (*sdk.CallToolResult, int) {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		raw, _ := json.Marshal(res)
		return res, len(raw)
	}
	text := func(res *sdk.CallToolResult) string {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	structured := func(res *sdk.CallToolResult) map[string]any {
		var m map[string]any
		raw, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(raw, &m)
		return m
	}

	open, _ := call("dvv_open", map[string]any{"address": "127.0.0.1", "port": x.Port, "protocol": "vnc", "perceive": true})
	limb, _ := structured(open)["limbId"].(string)
	if limb == "" {
		t.Fatalf("open: %s", text(open))
	}
	call("dvv_wait", map[string]any{"limbId": limb, "until": "connected", "timeoutMs": 20000})
	call("dvv_control", map[string]any{"limbId": limb, "action": "acquire"})
	if res, _ := call("dvv_wait", map[string]any{"limbId": limb, "until": "text", "text": "Discard", "timeoutMs": 25000}); res.IsError {
		t.Fatalf("wait for the dialog: %s", text(res))
	}
	st, _ := call("dvv_status", map[string]any{"limbId": limb})
	obs, _ := structured(st)["observation"].(map[string]any)
	geo, _ := obs["geometry"].(map[string]any)
	gen := geo["generation"]

	sshOpen, _ := call("dvv_open", map[string]any{"address": "127.0.0.1", "port": sshd.Port, "protocol": "ssh"})
	term, _ := structured(sshOpen)["limbId"].(string)
	if term == "" {
		t.Fatalf("open ssh: %s", text(sshOpen))
	}
	call("dvv_wait", map[string]any{"limbId": term, "until": "connected", "timeoutMs": 20000})
	call("dvv_control", map[string]any{"limbId": term, "action": "acquire"})
	grp, _ := call("dvv_group_open", map[string]any{"protocol": "vnc", "addresses": []string{fmt.Sprintf("127.0.0.1:%d", x.Port)}})
	groupOf := func(res *sdk.CallToolResult) string {
		g, _ := structured(res)["group"].(map[string]any)
		id, _ := g["groupId"].(string)
		return id
	}
	group := groupOf(grp)
	if group == "" {
		t.Fatalf("group_open: %s", text(grp))
	}

	// The button's picture, cut at scale 1 where find read its label: the
	// template dvv_expect looks for.
	fr, _ := call("dvv_find", map[string]any{"limbId": limb, "text": "Discard"})
	m := structured(fr)["find"].(map[string]any)["matches"].([]any)[0].(map[string]any)["box"].(map[string]any)
	cut, _ := call("dvv_screen", map[string]any{"limbId": limb, "form": "region",
		"region": map[string]any{"x": m["x"].(float64) - 4, "y": m["y"].(float64) - 4, "w": m["w"].(float64) + 8, "h": m["h"].(float64) + 8}})
	var template string
	for _, c := range cut.Content {
		if img, ok := c.(*sdk.ImageContent); ok {
			template = base64.StdEncoding.EncodeToString(img.Data)
		}
	}

	// A keystroke into the big xterm between reads, outside the timing, so
	// the next find recognises afresh rather than answering from its cache.
	touch := func() {
		x.Run(t, "xdotool", "mousemove", "400", "300", "type", "x")
		time.Sleep(300 * time.Millisecond) // let the change reach the mirror before the timed read
	}
	type row struct {
		tool, what, kvm string
		before          func()
		args            map[string]any
	}
	rows := []row{
		{"dvv_status", "observation of the limb", "", nil, map[string]any{"limbId": limb}},
		{"dvv_screen", "whole 1920x1080 desktop (image budget: 960x540 PNG)", "screenshot ~200 ms", nil, map[string]any{"limbId": limb}},
		{"dvv_screen", "form damage-crop, nothing changed", "diff_check ~5 ms", nil, map[string]any{"limbId": limb, "form": "damage-crop"}},
		{"dvv_screen", "form region 128x128 around the pointer", "cursor_crop ~50 ms", nil, map[string]any{"limbId": limb, "form": "region", "region": map[string]any{"x": 336, "y": 236, "w": 128, "h": 128}}},
		{"dvv_find", "text \"Discard\" (the button), screen unchanged", "detect_elements ~50 ms", nil, map[string]any{"limbId": limb, "text": "Discard"}},
		{"dvv_find", "text \"Discard\" after a keystroke changed the screen (the changed area read again)", "detect_elements ~50 ms", touch, map[string]any{"limbId": limb, "text": "Discard"}},
		{"dvv_find", "every line of the desktop, screen unchanged", "", nil, map[string]any{"limbId": limb}},
		{"dvv_click_text", "move to \"Discard\" (find, then a fenced click)", "", nil, map[string]any{"limbId": limb, "text": "Discard", "action": "move"}},
		{"dvv_click", "move, with the generation", "", nil, map[string]any{"limbId": limb, "action": "move", "x": 400, "y": 300, "generation": gen}},
		{"dvv_expect", "the button's picture, on the screen", "", nil, map[string]any{"limbId": limb, "templateBase64": template, "timeoutMs": 5000}},
		{"dvv_wait", "until text \"Discard\", already shown", "", nil, map[string]any{"limbId": limb, "until": "text", "text": "Discard", "timeoutMs": 5000}},
		{"dvv_history", "the limb's last ops", "", nil, map[string]any{"limbId": limb}},
		{"dvv_record", "list", "", nil, map[string]any{"limbId": limb, "action": "list"}},
		{"dvv_report", "dvvd's report", "", nil, map[string]any{}},
		{"dvv_limbs", "one limb open", "", nil, map[string]any{}},
		{"dvv_hosts", "none saved", "", nil, map[string]any{}},
		{"dvv_signals", "the limb's signals", "", nil, map[string]any{"limbId": limb}},
		{"dvv_control", "status", "", nil, map[string]any{"limbId": limb, "action": "status"}},
		{"dvv_clipboard", "get", "", nil, map[string]any{"limbId": limb, "action": "get"}},
		{"dvv_wait", "until screen-stable, quietMs 200", "", nil, map[string]any{"limbId": limb, "until": "screen-stable", "quietMs": 200, "timeoutMs": 5000}},
		{"dvv_key", "shift", "", nil, map[string]any{"limbId": limb, "keys": "shift"}},
		{"dvv_type", "one letter", "", nil, map[string]any{"limbId": limb, "text": "a"}},
		{"dvv_reconnect", "the 1080p desktop, until connected again", "", nil, map[string]any{"limbId": limb}},
		{"dvv_run", "echo hello on the SSH limb", "", nil, map[string]any{"limbId": term, "command": "echo hello", "timeoutMs": 5000}},
		{"dvv_term_send", "a line to the shell", "", nil, map[string]any{"limbId": term, "text": "echo hi\n"}},
		{"dvv_term_read", "the terminal's screen", "", nil, map[string]any{"limbId": term}},
		{"dvv_files", "list /etc/ssh on the SSH limb", "", nil, map[string]any{"limbId": term, "action": "list", "path": "/etc/ssh"}},
		{"dvv_transfer", "status, none running", "", nil, map[string]any{"limbId": term, "action": "status"}},
		{"dvv_group_list", "one group of one limb", "", nil, map[string]any{}},
		{"dvv_group_run", "status on every member", "", nil, map[string]any{"groupId": group, "action": "status", "arguments": map[string]any{}}},
		{"dvv_group_run", "screen at scale 0.25 on every member", "", nil, map[string]any{"groupId": group, "action": "screen", "arguments": map[string]any{"scale": 0.25}}},
		{"dvv_script", "3 steps: a move, key shift, wait until text \"Discard\" (the agent's lease)", "", nil, map[string]any{"limbId": limb,
			"steps": []string{"click 400 300 --action move", "key shift", "wait --until text --text Discard --timeout-ms 5000"}}},
	}
	// Tools that make and unmake: timed in pairs on the small desktop, each
	// undoing the other, so every round starts alike.
	smallAddr := fmt.Sprintf("127.0.0.1:%d", small.Port)
	var opened string
	pairs := []struct{ first, second row }{
		{row{"dvv_open", "a 640x480 VNC desktop (answers once the session task runs)", "", nil, map[string]any{"address": "127.0.0.1", "port": small.Port, "protocol": "vnc"}},
			row{"dvv_close", "that limb", "", nil, nil}},
		{row{"dvv_group_grow", "by the 640x480 desktop", "", nil, map[string]any{"groupId": group, "protocol": "vnc", "addresses": []string{smallAddr}}},
			row{"dvv_group_shrink", "by one limb", "", nil, map[string]any{"groupId": group, "n": 1}}},
		{row{"dvv_group_open", "a group of the 640x480 desktop", "", nil, map[string]any{"protocol": "vnc", "addresses": []string{smallAddr}}},
			row{"dvv_group_close", "that group", "", nil, nil}},
	}

	const n = 15
	var b strings.Builder
	b.WriteString("| tool | call | answer bytes | image | p50 | Claude KVM's published figure |\n| --- | --- | ---: | --- | ---: | --- |\n")
	bytesOf := map[string]int{}
	for _, r := range rows {
		var ds durations
		size, image := 0, "no"
		for i := 0; i < n; i++ {
			if r.before != nil {
				r.before()
			}
			t0 := time.Now()
			res, sz := call(r.tool, r.args)
			ds = append(ds, time.Since(t0))
			if res.IsError {
				t.Fatalf("%s %s: %s", r.tool, r.what, text(res))
			}
			size = sz
			for _, c := range res.Content {
				if _, ok := c.(*sdk.ImageContent); ok {
					image = "yes"
				}
			}
		}
		bytesOf[r.tool+" "+r.what] = size
		fmt.Fprintf(&b, "| `%s` | %s | %d | %s | %s | %s |\n", r.tool, r.what, size, image, ds.pct(0.5).Round(100*time.Microsecond), r.kvm)
	}
	for _, p := range pairs {
		var d1, d2 durations
		size1, size2 := 0, 0
		for i := 0; i < 5; i++ {
			t0 := time.Now()
			res, sz := call(p.first.tool, p.first.args)
			d1 = append(d1, time.Since(t0))
			if res.IsError {
				t.Fatalf("%s %s: %s", p.first.tool, p.first.what, text(res))
			}
			size1 = sz
			second := p.second.args
			switch p.first.tool {
			case "dvv_open":
				opened, _ = structured(res)["limbId"].(string)
				second = map[string]any{"limbId": opened}
			case "dvv_group_open":
				second = map[string]any{"groupId": groupOf(res)}
			}
			t0 = time.Now()
			res, sz = call(p.second.tool, second)
			d2 = append(d2, time.Since(t0))
			if res.IsError {
				t.Fatalf("%s %s: %s", p.second.tool, p.second.what, text(res))
			}
			size2 = sz
		}
		fmt.Fprintf(&b, "| `%s` | %s | %d | no | %s | |\n", p.first.tool, p.first.what, size1, d1.pct(0.5).Round(100*time.Microsecond))
		fmt.Fprintf(&b, "| `%s` | %s | %d | no | %s | |\n", p.second.tool, p.second.what, size2, d2.pct(0.5).Round(100*time.Microsecond))
	}
	shot, find := bytesOf["dvv_screen "+rows[1].what], bytesOf["dvv_find "+rows[4].what]
	b.WriteString("\nEvery tool of the reference and of every set is measured: the make-and-unmake tools (open/close, group grow/shrink, group open/close) over 5 rounds, the others over 15 calls.\n")
	fmt.Fprintf(&b, "\nLocating the button: `dvv_find` answers in %d bytes where `dvv_screen` answers in %d (a picture the model must then read): "+
		"%.0f times fewer bytes, and no image.\n", find, shot, float64(shot)/float64(find))
	t.Logf("\n%s", b.String())
	if path := os.Getenv("DVV_BENCH_TOOLS_OUT"); path != "" {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
