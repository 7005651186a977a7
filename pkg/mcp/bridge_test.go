package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"io"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func texts(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func structuredOf(t *testing.T, res *sdk.CallToolResult) map[string]any {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		t.Fatalf("structuredContent %s is not an object", b)
	}
	return m
}

func errorCode(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want isError, got success: %s", texts(res))
	}
	e, _ := structuredOf(t, res)["error"].(map[string]any)
	if e == nil || e["next"] == "" || e["message"] == "" {
		t.Fatalf("structured error lacks code/message/next: %v", res.StructuredContent)
	}
	code, _ := e["code"].(string)
	if !strings.HasPrefix(texts(res), code+": ") && !strings.Contains(texts(res), "\n"+code+": ") {
		t.Errorf("text does not lead with the code %s: %q", code, texts(res))
	}
	if !strings.Contains(texts(res), "Next: ") {
		t.Errorf("text has no next move: %q", texts(res))
	}
	return code
}

func TestProtocolSurface(t *testing.T) {
	t.Parallel()
	_, cs := connectBridge(t, Options{Socket: sockPath(t)}, "surface-test")
	ctx := context.Background()
	init := cs.InitializeResult()
	if !strings.Contains(init.Instructions, "GEOMETRY_CHANGED") || init.ServerInfo.Name != "dvvmcp" {
		t.Errorf("initialize: %+v", init)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != ToolCount {
		t.Fatalf("tools/list: %d tools, %v", len(tools.Tools), err)
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Errorf("ping: %v", err)
	}
	//lint:ignore SA1019 the bridge must not advertise logging, deprecated or not
	if caps := init.Capabilities; caps.Tools == nil || caps.Resources != nil || caps.Prompts != nil || caps.Logging != nil || caps.Completions != nil {
		t.Errorf("capabilities %+v: want tools only", caps)
	}
	// Not advertised, not served.
	if res, err := cs.ListResources(ctx, nil); err == nil {
		t.Errorf("resources/list answered %+v", res)
	}
	if pr, err := cs.ListPrompts(ctx, nil); err == nil {
		t.Errorf("prompts/list answered %+v", pr)
	}
}

func TestProtocolVersions(t *testing.T) {
	have := sdk.SupportedProtocolVersions()
	for _, v := range []string{"2025-06-18", "2025-03-26", "2024-11-05"} {
		found := false
		for _, h := range have {
			found = found || h == v
		}
		if !found {
			t.Errorf("the SDK no longer speaks MCP %s", v)
		}
	}
}

func TestMappingOverFakeDaemon(t *testing.T) {
	t.Parallel()
	path := sockPath(t)
	d := startFake(t, path, 100)
	_, cs := connectBridge(t, Options{Socket: path, Token: "tok-123"}, "claude-code")

	res := call(t, cs, "dvv_status", map[string]any{"limbId": "vnc-1"})
	if res.IsError {
		t.Fatalf("status: %s", texts(res))
	}
	obs, _ := structuredOf(t, res)["observation"].(map[string]any)
	if obs == nil || obs["schema"] != "dvv.observation.v1" {
		t.Errorf("structuredContent lacks the observation: %v", res.StructuredContent)
	}
	if !strings.Contains(texts(res), "generation 3") {
		t.Errorf("status text: %q", texts(res))
	}
	att, _ := d.seen()
	if len(att) != 1 || att[0].Name != "claude-code" || att[0].Token != "tok-123" {
		t.Errorf("attachment: %+v (want one, named after the client, with the token)", att)
	}

	if code := errorCode(t, call(t, cs, "dvv_status", map[string]any{"limbId": "nope"})); code != "LIMB_GONE" {
		t.Errorf("unknown limb: %s", code)
	}
	if code := errorCode(t, call(t, cs, "dvv_click", map[string]any{"limbId": "vnc-1", "action": "click", "x": 1, "y": 1})); code != "UNFENCED" {
		t.Errorf("click without generation: %s", code)
	}
	stale := call(t, cs, "dvv_click", map[string]any{"limbId": "vnc-1", "action": "click", "x": 1, "y": 1, "generation": 2})
	if code := errorCode(t, stale); code != "GEOMETRY_CHANGED" {
		t.Errorf("stale generation: %s", code)
	}
	if structuredOf(t, stale)["observation"] == nil {
		t.Errorf("GEOMETRY_CHANGED lost the fresh observation dvvd sent")
	}
	ok := call(t, cs, "dvv_click", map[string]any{"limbId": "vnc-1", "action": "click", "x": 1, "y": 1, "generation": 3})
	if ok.IsError || !strings.Contains(texts(ok), "dispatch only") {
		t.Errorf("click: %s", texts(ok))
	}

	scr := call(t, cs, "dvv_screen", map[string]any{"limbId": "vnc-1"})
	img, ok2 := scr.Content[0].(*sdk.ImageContent)
	if !ok2 || img.MIMEType != "image/png" {
		t.Fatalf("screen: first block is %T", scr.Content[0])
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil || cfg.Width != 64 || cfg.Height != 48 {
		t.Errorf("image decodes to %+v, %v", cfg, err)
	}
	line, _ := scr.Content[1].(*sdk.TextContent)
	if line == nil || !strings.HasPrefix(line.Text, "imageSpace:") {
		t.Fatalf("no imageSpace line beside the image: %+v", scr.Content[1])
	}
	// Said once, beside the picture; the other copy is the JSON mirror of
	// structuredContent.
	if n := strings.Count(texts(scr), line.Text); n != 2 {
		t.Errorf("the imageSpace line appears %d times in the text (want once beside the image, once in the JSON): %q", n, texts(scr))
	}
	sc, _ := structuredOf(t, scr)["screen"].(map[string]any)
	if sc == nil || sc["dataBase64"] != nil || sc["imageSpaceLine"] == "" {
		t.Errorf("structured screen should carry the mapping but not the bytes: %v", sc)
	}

	grp := call(t, cs, "dvv_group_run", map[string]any{"groupId": "g", "action": "screen"})
	if grp.IsError || len(grp.Content) != 3 {
		t.Errorf("group_run screen: %d blocks: %s", len(grp.Content), texts(grp))
	}
	_, reqs := d.seen()
	for _, r := range reqs {
		if r.Format != "" {
			t.Errorf("PNG is the default; %s asked for %q", r.Op, r.Format)
		}
	}
}

func TestJPEGOption(t *testing.T) {
	t.Parallel()
	path := sockPath(t)
	d := startFake(t, path, 1)
	_, cs := connectBridge(t, Options{Socket: path, JPEG: true}, "jpeg-test")
	call(t, cs, "dvv_screen", map[string]any{"limbId": "vnc-1"})
	call(t, cs, "dvv_group_run", map[string]any{"groupId": "g", "action": "screen", "arguments": map[string]any{"form": "full"}})
	_, reqs := d.seen()
	if len(reqs) != 2 || reqs[0].Format != "auto" || !strings.Contains(string(reqs[1].Arguments), `"format":"auto"`) {
		t.Errorf("requests: %+v", reqs)
	}
}

func TestDaemonUnavailableThenStarted(t *testing.T) {
	t.Parallel()
	path := sockPath(t)
	_, cs := connectBridge(t, Options{Socket: path}, "early-bird")
	res := call(t, cs, "dvv_limbs", nil)
	if code := errorCode(t, res); code != "DAEMON_UNAVAILABLE" || !strings.Contains(texts(res), "dvvd &") {
		t.Fatalf("without dvvd: %s %q", code, texts(res))
	}
	startFake(t, path, 7)
	if res := call(t, cs, "dvv_status", map[string]any{"limbId": "vnc-1"}); res.IsError {
		t.Fatalf("after dvvd started: %s", texts(res))
	}
}

func TestReconnectAfterDaemonRestart(t *testing.T) {
	t.Parallel()
	path := sockPath(t)
	d1 := startFake(t, path, 41)
	_, cs := connectBridge(t, Options{Socket: path}, "survivor")
	if res := call(t, cs, "dvv_status", map[string]any{"limbId": "vnc-1"}); res.IsError {
		t.Fatal(texts(res))
	}
	d1.stop()
	d2 := startFake(t, path, 42)
	res := call(t, cs, "dvv_status", map[string]any{"limbId": "vnc-1"})
	if res.IsError {
		t.Fatalf("after restart: %s", texts(res))
	}
	note, _ := structuredOf(t, res)["bridgeNote"].(string)
	if !strings.Contains(note, "restarted") || !strings.Contains(note, "lease") || !strings.Contains(texts(res), "NOTE: ") {
		t.Errorf("the agent was not told leases were lost: note %q, text %q", note, texts(res))
	}
	if att, _ := d2.seen(); len(att) != 1 || att[0].Name != "survivor" {
		t.Errorf("reattached as %+v", att)
	}
	// The note is said once, not on every later call.
	if again := call(t, cs, "dvv_status", map[string]any{"limbId": "vnc-1"}); strings.Contains(texts(again), "NOTE: ") {
		t.Errorf("note repeated: %s", texts(again))
	}
}

// TestBadInput: every kind of bad input is a clear error and the bridge
// keeps answering.
func TestBadInput(t *testing.T) {
	t.Parallel()
	path := sockPath(t)
	d := startFake(t, path, 1)
	_, cs := connectBridge(t, Options{Socket: path}, "fumbler")
	ctx := context.Background()

	_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "dvv_teleport", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "unknown tool") || !strings.Contains(err.Error(), "dvv_screen") {
		t.Errorf("unknown tool: %v", err)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		code string
	}{
		{"dvv_click", map[string]any{"action": "click", "x": "ten"}, "BAD_REQUEST"},
		{"dvv_click", map[string]any{"x": 1}, "BAD_REQUEST"},
		{"dvv_run", map[string]any{"command": "ls"}, "BAD_REQUEST"},
		{"dvv_wait", map[string]any{"until": "forever"}, "BAD_REQUEST"},
		{"dvv_type", map[string]any{"text": strings.Repeat("x", MaxText+10)}, "TOO_LARGE"},
		{"dvv_group_open", map[string]any{"hostIds": make([]string, MaxArrayItems+1)}, "TOO_LARGE"},
	} {
		if code := errorCode(t, call(t, cs, c.tool, c.args)); code != c.code {
			t.Errorf("%s %v: %s, want %s", c.tool, clip(strings.Join(strings.Fields(jsonString(c.args)), "")), code, c.code)
		}
	}
	if _, reqs := d.seen(); len(reqs) != 0 {
		t.Errorf("bad input reached dvvd: %+v", reqs)
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatalf("bridge stopped answering: %v", err)
	}
	if res := call(t, cs, "dvv_status", map[string]any{"limbId": "vnc-1"}); res.IsError {
		t.Errorf("bridge no longer forwards: %s", texts(res))
	}
}

func jsonString(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestNegotiatesProtocolVersions speaks raw JSON-RPC, as clients of each
// protocol version do, and checks the version is accepted as asked.
func TestNegotiatesProtocolVersions(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			b := New(Options{Socket: sockPath(t)})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { b.Run(ctx, &sdk.IOTransport{Reader: inR, Writer: outW}); close(done) }()
			defer func() { cancel(); inW.Close(); outR.Close(); <-done }()
			lines := bufio.NewScanner(outR)
			lines.Buffer(nil, 1<<20)
			send := func(s string) { io.WriteString(inW, s+"\n") }
			recv := func() map[string]any {
				if !lines.Scan() {
					t.Fatalf("no answer: %v", lines.Err())
				}
				var m map[string]any
				json.Unmarshal(lines.Bytes(), &m)
				return m
			}
			send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + v + `","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
			res, _ := recv()["result"].(map[string]any)
			if res["protocolVersion"] != v {
				t.Fatalf("asked %s, got %v", v, res["protocolVersion"])
			}
			if ins, _ := res["instructions"].(string); !strings.Contains(ins, "SCREEN_CHANGED") {
				t.Errorf("instructions missing: %v", res)
			}
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			tl, _ := recv()["result"].(map[string]any)
			if tools, _ := tl["tools"].([]any); len(tools) != ToolCount {
				t.Errorf("tools/list under %s: %d tools", v, len(tools))
			}
			send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"dvv_limbs","arguments":{}}}`)
			call, _ := recv()["result"].(map[string]any)
			if call["isError"] != true || call["structuredContent"] == nil {
				t.Errorf("tools/call without dvvd under %s: %v", v, call)
			}
		})
	}
}

// TestOversizedFrame sends arguments over the bridge's whole-arguments
// bound through the stdio framing: a TOO_LARGE tool error, and the session
// goes on.
func TestOversizedFrame(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 61 MiB through a pipe")
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	b := New(Options{Socket: sockPath(t)})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { b.ServeStdio(ctx, inR, outW); close(done) }()
	defer func() { cancel(); inW.Close(); outR.Close(); <-done }()
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	send := func(s string) {
		go io.WriteString(inW, s+"\n")
	}
	recv := func() map[string]any {
		if !lines.Scan() {
			t.Fatalf("no answer: %v", lines.Err())
		}
		var m map[string]any
		json.Unmarshal(lines.Bytes(), &m)
		return m
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"big","version":"0"}}}`)
	recv()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	big := strings.Repeat("A", MaxArgumentBytes+1024)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"dvv_files","arguments":{"action":"put","path":"~/x","contentBase64":"` + big + `"}}}`)
	res, _ := recv()["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	e, _ := sc["error"].(map[string]any)
	if res["isError"] != true || e["code"] != "TOO_LARGE" {
		t.Fatalf("oversized arguments: %v", e)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if m := recv(); m["result"] == nil {
		t.Fatalf("bridge stopped answering after an oversized call: %v", m)
	}
}
