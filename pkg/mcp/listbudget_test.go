package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
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
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	b := New(Options{Socket: sockPath(t)})
	done := make(chan struct{})
	go func() { b.ServeStdio(ctx, inR, outW); close(done) }()
	defer func() { inW.Close(); cancel(); <-done }()
	go func() {
		io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"budget","version":"1"}}}`+"\n")
		io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
		io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
	}()
	sc := bufio.NewScanner(outR)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(sc.Bytes(), &m) == nil && string(m.ID) == "2" {
			line := append([]byte(nil), sc.Bytes()...)
			go io.Copy(io.Discard, outR)
			return line
		}
	}
	t.Fatalf("no tools/list answer: %v", sc.Err())
	return nil
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
