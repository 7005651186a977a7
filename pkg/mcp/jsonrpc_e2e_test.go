package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// rpcPeer speaks raw JSON-RPC lines to a dvvmcp process.
type rpcPeer struct {
	in      io.WriteCloser
	lines   chan map[string]any
	exited  chan struct{} // closed once stdout has ended and cmd.Wait answered exitErr
	exitErr error
}

func startRPCPeer(t *testing.T, socket string) *rpcPeer {
	t.Helper()
	return startRPCPeerCmd(t, exec.Command(binary(t, "dvvmcp"), "--socket", socket))
}

// startRPCPeerCmd starts cmd (a dvvmcp command line) and speaks to it.
func startRPCPeerCmd(t *testing.T, cmd *exec.Cmd) *rpcPeer {
	t.Helper()
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &rpcPeer{in: in, lines: make(chan map[string]any, 64), exited: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				m = map[string]any{"unparsable": sc.Text()}
			}
			p.lines <- m
		}
		close(p.lines)
		p.exitErr = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		in.Close()
		select {
		case <-p.exited:
		case <-time.After(90 * time.Second):
			cmd.Process.Kill()
		}
	})
	return p
}

func (p *rpcPeer) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		t.Fatalf("write %s: %v (did dvvmcp exit?)", line, err)
	}
}

// next reads the next line; seen collects every id answered on the way.
func (p *rpcPeer) next(t *testing.T) map[string]any {
	t.Helper()
	select {
	case m, ok := <-p.lines:
		if !ok {
			t.Fatal("dvvmcp closed its stdout (exited)")
		}
		return m
	case <-time.After(30 * time.Second):
		t.Fatal("no line from dvvmcp")
	}
	return nil
}

// answerTo reads lines until the answer to id, failing if an answer to
// forbidden goes by.
func (p *rpcPeer) answerTo(t *testing.T, id float64, forbidden float64) map[string]any {
	t.Helper()
	for {
		m := p.next(t)
		if m["id"] == forbidden {
			t.Fatalf("a cancelled request was answered: %v", m)
		}
		if m["id"] == id {
			return m
		}
	}
}

func rpcErrorCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

// TestBridgeJSONRPCRobustness runs the dvvmcp binary against a real dvvd and
// a real Xvnc: a line that is not JSON answers -32700 and the session goes
// on; tools/list before initialize answers a JSON-RPC code; a cancelled
// tools/call is not answered and its wait stops in dvvd.
func TestBridgeJSONRPCRobustness(t *testing.T) {
	t.Parallel()
	vnc := testbed.StartXvnc(t, testbed.XvncOptions{})
	d := startDvvd(t)
	p := startRPCPeer(t, d.Socket)

	p.send(t, "this is not json")
	if m := p.next(t); rpcErrorCode(m) != -32700 || m["id"] != nil {
		t.Fatalf("garbage line: %v", m)
	}
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if m := p.answerTo(t, 1, -1); rpcErrorCode(m) != -32600 {
		t.Fatalf("tools/list before initialize: %v", m)
	}
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"rpc-test","version":"1"}}}`)
	if m := p.answerTo(t, 2, -1); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(t, "{broken")
	if m := p.next(t); rpcErrorCode(m) != -32700 {
		t.Fatalf("second garbage line: %v", m)
	}

	p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"dvv_open","arguments":{"address":"127.0.0.1","port":%d,"protocol":"vnc","perceive":true}}}`, vnc.Port))
	m := p.answerTo(t, 3, -1)
	res, _ := m["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	limbID, _ := sc["limbId"].(string)
	if limbID == "" {
		t.Fatalf("open: %v", m)
	}
	p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"dvv_wait","arguments":{"limbId":%q,"until":"connected","timeoutMs":20000}}}`, limbID))
	p.answerTo(t, 4, -1)

	// A wait that runs its full 25 s (the screen must stay still for as
	// long as the deadline), cancelled at once.
	p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"dvv_wait","arguments":{"limbId":%q,"until":"screen-stable","quietMs":25000,"timeoutMs":25000}}}`, limbID))
	obs, err := client.Dial(context.Background(), d.Socket, client.Options{Name: "observer"})
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	waitRunning := func(wantEnded bool) bool {
		r, err := obs.History(context.Background(), wire.HistoryArgs{Target: wire.Target{LimbID: limbID}})
		if err != nil {
			t.Fatalf("history: %v", err)
		}
		for _, h := range r.History {
			if h.Op == wire.OpWait && strings.Contains(h.Detail, "screen-stable") {
				return wantEnded
			}
		}
		return !wantEnded
	}
	// history records an op when it ends; the wait must not be there yet,
	// and must appear long before its 25 s deadline once cancelled.
	if !waitRunning(false) {
		t.Fatal("the wait ended before it was cancelled")
	}
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"user gave up"}}`)
	testbed.Eventually(t, 15*time.Second, "the cancelled wait to end in dvvd", func() bool { return waitRunning(true) })
	p.send(t, `{"jsonrpc":"2.0","id":6,"method":"ping"}`)
	p.answerTo(t, 6, 5)
	// The bridge answers in order of completion; a late answer to 5 would
	// come before this one.
	p.send(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"dvv_limbs","arguments":{}}}`)
	p.answerTo(t, 7, 5)
}

// TestStdinClosedWithACallInFlight: a client that sends a slow call and
// closes dvvmcp's stdin still gets the answer on stdout, and dvvmcp then
// exits cleanly (the SDK alone would cancel the call unanswered).
func TestStdinClosedWithACallInFlight(t *testing.T) {
	t.Parallel()
	vnc := testbed.StartXvnc(t, testbed.XvncOptions{})
	d := startDvvd(t)
	p := startRPCPeer(t, d.Socket)
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"closes-early","version":"1"}}}`)
	p.answerTo(t, 1, -1)
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"dvv_open","arguments":{"address":"127.0.0.1","port":%d,"protocol":"vnc","perceive":true}}}`, vnc.Port))
	res, _ := p.answerTo(t, 2, -1)["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	limbID, _ := sc["limbId"].(string)
	if limbID == "" {
		t.Fatalf("open: %v", res)
	}
	p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"dvv_wait","arguments":{"limbId":%q,"until":"connected","timeoutMs":20000}}}`, limbID))
	p.answerTo(t, 3, -1)

	ops := watchOps(t, d.Socket)
	// Settles once the screen has been still for 2 s: slow next to closing stdin.
	p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"dvv_wait","arguments":{"limbId":%q,"until":"screen-stable","quietMs":2000,"timeoutMs":20000}}}`, limbID))
	ops.started(t, limbID, wire.OpWait)
	p.in.Close()

	var answer map[string]any
	for m := range p.lines {
		if m["id"] == float64(4) {
			answer = m
		}
	}
	if answer == nil {
		t.Fatal("dvvmcp exited without answering the call in flight when stdin closed")
	}
	res, _ = answer["result"].(map[string]any)
	if res == nil || res["isError"] == true {
		t.Fatalf("the wait in flight: %v", answer)
	}
	checkOutput(t, "dvv_wait", toolResult(t, res))
	<-p.exited
	if p.exitErr != nil {
		t.Errorf("dvvmcp after stdin closed: %v", p.exitErr)
	}
}
