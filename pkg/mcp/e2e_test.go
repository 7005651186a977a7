package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dvvhq/dvv/internal/testbed"
)

// TestRealDvvdAndXvnc drives the bridge with the Go SDK's client against a
// real dvvd and a real Xvnc: open, wait, screen, the fences, close.
func TestRealDvvdAndXvnc(t *testing.T) {
	t.Parallel()
	vnc := testbed.StartXvnc(t, testbed.XvncOptions{Width: 640, Height: 480})
	d := startDvvd(t)
	_, cs := connectBridge(t, Options{Socket: d.Socket}, "e2e-agent")

	open := call(t, cs, "dvv_open", map[string]any{"address": "127.0.0.1", "port": vnc.Port, "protocol": "vnc", "perceive": true})
	if open.IsError {
		t.Fatalf("open: %s", texts(open))
	}
	limbID, _ := structuredOf(t, open)["limbId"].(string)
	if limbID == "" {
		obs, _ := structuredOf(t, open)["observation"].(map[string]any)
		limbID, _ = obs["limbId"].(string)
	}
	if limbID == "" {
		t.Fatalf("open gave no limb id: %s", texts(open))
	}
	wait := call(t, cs, "dvv_wait", map[string]any{"limbId": limbID, "until": "connected", "timeoutMs": 20000})
	if w, _ := structuredOf(t, wait)["wait"].(map[string]any); wait.IsError || w["settled"] != true {
		t.Fatalf("wait connected: %s", texts(wait))
	}
	if res := call(t, cs, "dvv_control", map[string]any{"limbId": limbID, "action": "acquire", "reason": "test"}); res.IsError {
		t.Fatalf("acquire: %s", texts(res))
	}

	var scr *sdk.CallToolResult
	testbed.Eventually(t, 15*time.Second, "a screen with pixels", func() bool {
		scr = call(t, cs, "dvv_screen", map[string]any{"limbId": limbID})
		return !scr.IsError
	})
	img, ok := scr.Content[0].(*sdk.ImageContent)
	if !ok {
		t.Fatalf("screen: first block is %T: %s", scr.Content[0], texts(scr))
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil || cfg.Width != 640 || cfg.Height != 480 || img.MIMEType != "image/png" {
		t.Fatalf("screen image: %s %+v %v", img.MIMEType, cfg, err)
	}
	if line, _ := scr.Content[1].(*sdk.TextContent); line == nil || !strings.Contains(line.Text, "640") {
		t.Errorf("no imageSpace line beside the image: %v", scr.Content[1])
	}
	sc, _ := structuredOf(t, scr)["screen"].(map[string]any)
	gen, _ := sc["generation"].(float64)
	if gen < 1 {
		t.Fatalf("screen states no generation: %v", sc)
	}

	if code := errorCode(t, call(t, cs, "dvv_click", map[string]any{"limbId": limbID, "action": "click", "x": 100, "y": 50})); code != "UNFENCED" {
		t.Errorf("click without generation: %s, want UNFENCED", code)
	}
	if code := errorCode(t, call(t, cs, "dvv_click", map[string]any{"limbId": limbID, "action": "move", "x": 100, "y": 50, "generation": gen + 1})); code != "GEOMETRY_CHANGED" {
		t.Errorf("click with a future generation: %s, want GEOMETRY_CHANGED", code)
	}
	mv := call(t, cs, "dvv_click", map[string]any{"limbId": limbID, "action": "move", "x": 123, "y": 77, "generation": gen})
	if mv.IsError {
		t.Fatalf("move: %s", texts(mv))
	}
	testbed.Eventually(t, 10*time.Second, "the pointer at 123,77 on the X server", func() bool {
		x, y := vnc.MouseLocation(t)
		return x == 123 && y == 77
	})

	if code := errorCode(t, call(t, cs, "dvv_status", map[string]any{"limbId": "vnc-no-such-limb"})); code != "LIMB_GONE" {
		t.Errorf("unknown limb: %s, want LIMB_GONE", code)
	}
	if res := call(t, cs, "dvv_close", map[string]any{"limbId": limbID}); res.IsError {
		t.Fatalf("close: %s", texts(res))
	}
	if res := call(t, cs, "dvv_close", map[string]any{"limbId": limbID}); res.IsError {
		t.Errorf("closing again must be an ordinary success: %s", texts(res))
	}
	if code := errorCode(t, call(t, cs, "dvv_status", map[string]any{"limbId": limbID})); code != "LIMB_GONE" {
		t.Errorf("closed limb: %s, want LIMB_GONE", code)
	}
}

// TestRealDvvdRestart: dvvd dies under a running bridge (every tool says
// how to start it), then comes back (the next call reconnects and says the
// leases were lost).
func TestRealDvvdRestart(t *testing.T) {
	t.Parallel()
	d := startDvvd(t)
	_, cs := connectBridge(t, Options{Socket: d.Socket}, "restart-agent")
	if res := call(t, cs, "dvv_limbs", nil); res.IsError {
		t.Fatalf("limbs: %s", texts(res))
	}
	d.kill(t)
	res := call(t, cs, "dvv_limbs", nil)
	if code := errorCode(t, res); code != "DAEMON_UNAVAILABLE" || !strings.Contains(texts(res), "dvvd") {
		t.Fatalf("with dvvd dead: %s %q", code, texts(res))
	}
	d.restart(t)
	res = call(t, cs, "dvv_limbs", nil)
	if res.IsError {
		t.Fatalf("after restart: %s", texts(res))
	}
	if note, _ := structuredOf(t, res)["bridgeNote"].(string); !strings.Contains(note, "lease") {
		t.Errorf("the agent was not told its leases were lost: %q", texts(res))
	}
}

// TestBinaryOverStdio runs the built dvvmcp as an MCP client would: a child
// process spoken to over its stdin and stdout.
func TestBinaryOverStdio(t *testing.T) {
	t.Parallel()
	d := startDvvd(t)
	ctx := context.Background()
	cmd := exec.Command(binary(t, "dvvmcp"), "--socket", d.Socket)
	cmd.Stderr = os.Stderr
	c := sdk.NewClient(&sdk.Implementation{Name: "pipe-client", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != ToolCount {
		t.Fatalf("tools/list: %v", err)
	}
	res := call(t, cs, "dvv_limbs", map[string]any{})
	if res.IsError {
		t.Fatalf("limbs: %s", texts(res))
	}
	if code := errorCode(t, call(t, cs, "dvv_status", map[string]any{"limbId": "ssh-none"})); code != "LIMB_GONE" {
		t.Errorf("unknown limb: %s", code)
	}
}

// TestTypeScriptClient drives dvvmcp with the official TypeScript SDK, a
// client dvv did not write (test/mcp-js).
func TestTypeScriptClient(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Log("!!!!!!!! npm is not installed: the independent TypeScript-client test of dvvmcp is SKIPPED. Install nodejs and npm. !!!!!!!!")
	}
	testbed.Need(t, "node", "npm")
	dir, err := filepath.Abs("../../test/mcp-js")
	if err != nil {
		t.Fatal(err)
	}
	npmCI(t, dir)
	vnc := testbed.StartXvnc(t, testbed.XvncOptions{})
	d := startDvvd(t)
	node := exec.Command("node", "client.mjs", binary(t, "dvvmcp"), "--socket", d.Socket)
	node.Env = append(os.Environ(), fmt.Sprintf("DVV_TEST_VNC_PORT=%d", vnc.Port))
	node.Dir = dir
	var stderr bytes.Buffer
	node.Stderr = &stderr
	out, err := node.Output()
	if err != nil {
		t.Fatalf("node client.mjs: %v\n%s\n%s", err, out, stderr.Bytes())
	}
	var got struct {
		Server       struct{ Name string }
		Instructions string
		Tools        []string
		ClickSchema  map[string]any
		Limbs, Gone  struct {
			IsError    bool
			Text       string
			Structured map[string]any
		}
		Bad struct {
			IsError bool
			Text    string
		}
		Capabilities       map[string]any
		Resources, Prompts struct{ Error any }
		Invalid            []any
		Validated          []string
		Drove              string
		ListToolsMs        int
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("client output %q: %v", out, err)
	}
	var want []string
	for _, tool := range Tools {
		want = append(want, tool.Name)
	}
	slices.Sort(want)
	slices.Sort(got.Tools)
	if !slices.Equal(got.Tools, want) {
		t.Errorf("tools seen by the TypeScript SDK: %v", got.Tools)
	}
	if got.Server.Name != "dvvmcp" || !strings.Contains(got.Instructions, "LEASE_REVOKED") {
		t.Errorf("server %q, instructions %q", got.Server.Name, got.Instructions)
	}
	if req, _ := got.ClickSchema["required"].([]any); len(req) != 1 || req[0] != "action" {
		t.Errorf("dvv_click schema as the TypeScript SDK sees it: %v", got.ClickSchema)
	}
	if got.Limbs.IsError {
		t.Errorf("dvv_limbs: %s", got.Limbs.Text)
	}
	if !got.Gone.IsError || !strings.HasPrefix(got.Gone.Text, "LIMB_GONE: ") {
		t.Errorf("dvv_status on a missing limb: %+v", got.Gone)
	}
	if !got.Bad.IsError || !strings.HasPrefix(got.Bad.Text, "BAD_REQUEST: ") {
		t.Errorf("dvv_click with a string x: %+v", got.Bad)
	}
	if len(got.Capabilities) != 1 || got.Capabilities["tools"] == nil {
		t.Errorf("capabilities as the TypeScript SDK sees them: %v (want tools only)", got.Capabilities)
	}
	if got.Resources.Error != float64(-32601) || got.Prompts.Error != float64(-32601) {
		t.Errorf("resources/list %v, prompts/list %v: want -32601, not served", got.Resources, got.Prompts)
	}
	// Ajv in strict mode compiled every outputSchema and every answer met its tool's.
	if len(got.Invalid) > 0 {
		t.Errorf("outputSchema problems seen by Ajv (strict): %v", got.Invalid)
	}
	if !strings.HasPrefix(got.Drove, "vnc-") {
		t.Errorf("driving the VNC server through the tools: %q", got.Drove)
	}
	seen := map[string]bool{}
	for _, v := range got.Validated {
		seen[strings.Fields(v)[0]] = true
	}
	if len(seen) != ToolCount {
		t.Errorf("real answers validated for %d tools only: %v", len(seen), got.Validated)
	}
	t.Logf("answers validated against their outputSchema (Ajv strict): %v", got.Validated)
	t.Logf("the TypeScript SDK's listTools() (which compiles every outputSchema) took %d ms", got.ListToolsMs)
}

// npmCI installs test/mcp-js's pinned packages when any is missing.
var npmMu sync.Mutex

func npmCI(t *testing.T, dir string) {
	t.Helper()
	// Parallel tests share test/mcp-js: two npm ci at once in one
	// directory remove each other's files.
	npmMu.Lock()
	defer npmMu.Unlock()
	var pkg struct{ Dependencies map[string]string }
	raw, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil || json.Unmarshal(raw, &pkg) != nil {
		t.Fatalf("%s/package.json: %v", dir, err)
	}
	for name := range pkg.Dependencies {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", name, "package.json")); err != nil {
			npm := exec.Command("npm", "ci", "--no-audit", "--no-fund")
			npm.Dir = dir
			if out, err := npm.CombinedOutput(); err != nil {
				t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
			}
			return
		}
	}
}
