package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dvvhq/dvv/pkg/wire"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/tools_list_default.json from the current bridge")

// AllSetsBudget is the most tools/list may weigh with every set enabled:
// the reference's tools (about 39 KB) and every set within its own budget.
const AllSetsBudget = 96 << 10

// toolsListLineWith is tools/list as a bridge serving these sets writes it.
func toolsListLineWith(t *testing.T, sets []string) []byte {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := startPipePeer(t, serveStdio(ctx, New(Options{Socket: sockPath(t), Sets: sets})))
	p.initialize(t, "2025-06-18")
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	return p.answer(t, 2)
}

// TestDefaultToolsListIsGolden holds the default tools/list byte for byte:
// the sets add tools only when asked for, and change nothing of the
// reference's. The golden file was written by the bridge before tool sets
// existed.
func TestDefaultToolsListIsGolden(t *testing.T) {
	got := toolsListLineWith(t, nil)
	path := filepath.Join("testdata", "tools_list_default.json")
	if *updateGolden {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the default tools/list changed: %d bytes, golden %d bytes", len(got), len(want))
	}
	if len(got) > ToolsListBudget {
		t.Errorf("default tools/list is %d bytes, over %d", len(got), ToolsListBudget)
	}
}

func toolsOf(t *testing.T, line []byte) []map[string]any {
	t.Helper()
	var r struct {
		Result struct {
			Tools []map[string]any `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &r); err != nil {
		t.Fatal(err)
	}
	return r.Result.Tools
}

// TestToolSetBudgets holds what each set adds to tools/list, and the whole
// list with every set.
func TestToolSetBudgets(t *testing.T) {
	base := len(toolsListLineWith(t, nil))
	for _, s := range Sets {
		line := toolsListLineWith(t, []string{s.Name})
		tools := toolsOf(t, line)
		if len(tools) != ToolCount+len(s.Tools) {
			t.Errorf("set %s: %d tools, want %d", s.Name, len(tools), ToolCount+len(s.Tools))
		}
		added := len(line) - base
		t.Logf("set %s adds %d bytes (budget %d)", s.Name, added, s.Budget)
		if added > s.Budget {
			t.Errorf("set %s adds %d bytes to tools/list, over its %d-byte budget", s.Name, added, s.Budget)
		}
	}
	all, err := ParseSets(SetAll)
	if err != nil {
		t.Fatal(err)
	}
	line := toolsListLineWith(t, all)
	t.Logf("--tools all: %d bytes (budget %d)", len(line), AllSetsBudget)
	if len(line) > AllSetsBudget {
		t.Errorf("--tools all: tools/list is %d bytes, over %d", len(line), AllSetsBudget)
	}
}

// TestSetToolsAreClosedAndDescribed: every set's tool is dvv_ plus its op,
// takes only named arguments, states an outputSchema and says what it
// costs.
func TestSetToolsAreClosedAndDescribed(t *testing.T) {
	all, _ := ParseSets(SetAll)
	seen := map[string]bool{}
	for _, tool := range toolsOf(t, toolsListLineWith(t, all)) {
		name, _ := tool["name"].(string)
		seen[name] = true
		in, _ := tool["inputSchema"].(map[string]any)
		if in["additionalProperties"] != false {
			t.Errorf("%s: input schema is not closed: %v", name, in)
		}
		if _, ok := tool["outputSchema"].(map[string]any); !ok {
			t.Errorf("%s: no outputSchema", name)
		}
		ref, _ := Lookup(name)
		desc, _ := tool["description"].(string)
		if ref == nil && !strings.Contains(desc, "Cost: ") {
			t.Errorf("%s: the description does not say what it costs: %q", name, desc)
		}
	}
	for _, s := range Sets {
		for _, tool := range s.Tools {
			if !seen[tool.Name] {
				t.Errorf("--tools all does not serve %s", tool.Name)
			}
			if op := strings.TrimPrefix(tool.Name, "dvv_"); op != tool.Op && op != tool.Op+"_text" && op != s.Name+"_"+tool.Op {
				t.Errorf("%s does not name its op %s", tool.Name, tool.Op)
			}
		}
	}
}

func TestParseSets(t *testing.T) {
	for in, want := range map[string]string{"": "", "text": "text", "text, image,text": "text,image", "all": "text,image,structure,evidence,machine,guest", "evidence,all": "text,image,structure,evidence,machine,guest"} {
		got, err := ParseSets(in)
		if err != nil || strings.Join(got, ",") != want {
			t.Errorf("ParseSets(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	if _, err := ParseSets("text,pictures"); err == nil || !strings.Contains(err.Error(), `"pictures"`) || !strings.Contains(err.Error(), "text, image, structure, evidence, machine, guest, all") {
		t.Errorf("an unknown set: %v", err)
	}
}

// TestToolOutsideTheSetsIsUnknown: a set's tool is not callable unless its
// set is enabled: the call is -32602 and says which --tools serves it.
func TestToolOutsideTheSetsIsUnknown(t *testing.T) {
	for _, sets := range [][]string{nil, {"image"}} {
		_, cs := connectBridge(t, Options{Socket: sockPath(t), Sets: sets}, "sets-test")
		_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "dvv_find", Arguments: map[string]any{"limbId": "vnc-x", "text": "OK"}})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, "--tools text") {
			t.Errorf("sets %v: dvv_find: %v, want -32602 naming --tools text", sets, err)
		}
	}
	// Served, it reaches dvvd: here there is none, and the answer says so.
	_, cs := connectBridge(t, Options{Socket: sockPath(t), Sets: []string{"text"}}, "sets-test")
	res := call(t, cs, "dvv_find", map[string]any{"limbId": "vnc-x", "text": "OK"})
	if code := errorCode(t, res); code != string(wire.DaemonUnavailable) {
		t.Errorf("dvv_find with --tools text and no dvvd: %s", code)
	}
}

// TestInstructionsNameTheServedSets: initialize tells the agent about the
// sets it serves, and without sets says exactly what it always said.
func TestInstructionsNameTheServedSets(t *testing.T) {
	_, plain := connectBridge(t, Options{Socket: sockPath(t)}, "sets-test")
	if got := plain.InitializeResult().Instructions; got != Instructions() || strings.Contains(got, "dvv_find") {
		t.Errorf("instructions without sets changed or name a set's tool: %q", got)
	}
	_, text := connectBridge(t, Options{Socket: sockPath(t), Sets: []string{"text"}}, "sets-test")
	got := text.InitializeResult().Instructions
	if !strings.HasPrefix(got, Instructions()) || !strings.Contains(got, "dvv_find") || strings.Contains(got, "dvv_expect") {
		t.Errorf("instructions with --tools text: %q", got)
	}
}

// TestClickTextRefusesBadInputBeforeDvvd: dvv_click_text without usable
// text, or with an action that needs more than one point, is refused by the
// bridge with what to do; nothing reaches dvvd (there is none here, and the
// answer is not DAEMON_UNAVAILABLE).
func TestClickTextRefusesBadInputBeforeDvvd(t *testing.T) {
	_, cs := connectBridge(t, Options{Socket: sockPath(t), Sets: []string{"text"}}, "sets-test")
	for _, args := range []map[string]any{
		{"limbId": "vnc-x", "text": "  "},
		{"limbId": "vnc-x"},
		{"limbId": "vnc-x", "text": "OK", "action": "drag"},
		{"limbId": "vnc-x", "text": "OK", "x": 5},
	} {
		res := call(t, cs, "dvv_click_text", args)
		if code := errorCode(t, res); code != string(wire.BadRequest) || !strings.Contains(texts(res), "Next: ") {
			t.Errorf("dvv_click_text %v: %s %q", args, code, texts(res))
		}
	}
}
