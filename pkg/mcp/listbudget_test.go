package mcp

import (
	"context"
	"encoding/json"
	"testing"
)

// ToolsListBudget is the most a tools/list answer may weigh, in bytes of
// the JSON-RPC line: clients that hand schemas to the model pay it in
// context on every turn.
const ToolsListBudget = 40 << 10

// toolsListLine serves the bridge on pipes, as dvvmcp does on stdio, and
// returns the tools/list answer line exactly as it is written.
func toolsListLine(t *testing.T) []byte {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := startPipePeer(t, serveStdio(ctx, New(Options{Socket: sockPath(t)})))
	p.initialize(t, "2025-06-18")
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	return p.answer(t, 2)
}

// TestToolsListFitsTheBudget holds the bound on what tools/list costs.
func TestToolsListFitsTheBudget(t *testing.T) {
	line := toolsListLine(t)
	var parts struct {
		Result struct {
			Tools []map[string]json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &parts); err != nil || len(parts.Result.Tools) != ToolCount {
		t.Fatalf("tools/list: %d tools, %v", len(parts.Result.Tools), err)
	}
	size := map[string]int{}
	for _, tool := range parts.Result.Tools {
		for k, v := range tool {
			size[k] += len(v)
		}
	}
	t.Logf("tools/list: %d bytes; by key: %v", len(line), size)
	if len(line) > ToolsListBudget {
		t.Errorf("tools/list is %d bytes, over the %d-byte budget (by key: %v)", len(line), ToolsListBudget, size)
	}
}
