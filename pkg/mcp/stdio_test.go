package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// pipePeer speaks raw JSON-RPC lines to a bridge served in this process on
// pipes, the way dvvmcp serves stdin and stdout.
type pipePeer struct {
	in    *io.PipeWriter
	lines chan []byte
	ended chan error // ServeStdio's (or Run's) return
}

// startPipePeer serves b on pipes with serve (b.ServeStdio, or b.Run with a
// transport of the test's own).
func startPipePeer(t *testing.T, serve func(r io.ReadCloser, w io.WriteCloser) error) *pipePeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &pipePeer{in: inW, lines: make(chan []byte, 64), ended: make(chan error, 1)}
	go func() { p.ended <- serve(inR, outW); outW.Close() }()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			p.lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(p.lines)
	}()
	t.Cleanup(func() { inW.Close() })
	return p
}

func (p *pipePeer) send(t *testing.T, line string) {
	t.Helper()
	go io.WriteString(p.in, line+"\n")
}

// answer reads lines until the one answering id and returns it raw.
func (p *pipePeer) answer(t *testing.T, id int) []byte {
	t.Helper()
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				t.Fatalf("the bridge closed its output before answering %d", id)
			}
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(line, &m) == nil && string(m.ID) == fmt.Sprint(id) {
				return line
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("no answer to %d", id)
		}
	}
}

func (p *pipePeer) answerMap(t *testing.T, id int) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(p.answer(t, id), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func (p *pipePeer) initialize(t *testing.T, version string) map[string]any {
	t.Helper()
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"pipe-test","version":"1"}}}`)
	m := p.answerMap(t, 1)
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	res, _ := m["result"].(map[string]any)
	if res == nil {
		t.Fatalf("initialize: %v", m)
	}
	return res
}

// callTool sends tools/call and returns its result object.
func (p *pipePeer) callTool(t *testing.T, id int, name string, args map[string]any) map[string]any {
	t.Helper()
	p.sendCall(t, id, name, args)
	m := p.answerMap(t, id)
	res, _ := m["result"].(map[string]any)
	if res == nil {
		t.Fatalf("%s: %v", name, m)
	}
	return res
}

func (p *pipePeer) sendCall(t *testing.T, id int, name string, args map[string]any) {
	t.Helper()
	raw, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}})
	if err != nil {
		t.Fatal(err)
	}
	p.send(t, string(raw))
}

func serveStdio(ctx context.Context, b *Bridge) func(r io.ReadCloser, w io.WriteCloser) error {
	return func(r io.ReadCloser, w io.WriteCloser) error { return b.ServeStdio(ctx, r, w) }
}

// TestAdvertisesOnlyWhatIsServed: initialize at a handshake-era version
// offers tools and nothing else; resources and prompts are not methods of
// this server; list results carry no ttlMs or cacheScope, which only
// 2026-07-28 defines.
func TestAdvertisesOnlyWhatIsServed(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"2025-11-25", "2025-06-18", "2024-11-05"} {
		t.Run(v, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			p := startPipePeer(t, serveStdio(ctx, New(Options{Socket: sockPath(t)})))
			init := p.initialize(t, v)
			caps, _ := init["capabilities"].(map[string]any)
			if len(caps) != 1 || caps["tools"] == nil {
				t.Errorf("capabilities %v: want tools only", caps)
			}
			p.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			var list map[string]json.RawMessage
			var line struct {
				Result json.RawMessage `json:"result"`
			}
			json.Unmarshal(p.answer(t, 2), &line)
			if err := json.Unmarshal(line.Result, &list); err != nil || list["tools"] == nil {
				t.Fatalf("tools/list: %s", line.Result)
			}
			for _, k := range []string{"ttlMs", "cacheScope"} {
				if _, ok := list[k]; ok {
					t.Errorf("tools/list under %s carries %s, which that version does not define", v, k)
				}
			}
			for id, method := range map[int]string{3: "resources/list", 4: "prompts/list"} {
				p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q}`, id, method))
				if code := rpcErrorCode(p.answerMap(t, id)); code != -32601 {
					t.Errorf("%s: code %v, want -32601 (not served)", method, code)
				}
			}
		})
	}
}

// openLimbOverPipe opens a perceiving limb on vnc through the peer and
// waits until it is connected; ids 2 and 3 are used.
func openLimbOverPipe(t *testing.T, p *pipePeer, vncPort int) string {
	t.Helper()
	open := p.callTool(t, 2, "dvv_open", map[string]any{"address": "127.0.0.1", "port": vncPort, "protocol": "vnc", "perceive": true})
	sc, _ := open["structuredContent"].(map[string]any)
	limbID, _ := sc["limbId"].(string)
	if limbID == "" {
		t.Fatalf("open: %v", open)
	}
	if w := p.callTool(t, 3, "dvv_wait", map[string]any{"limbId": limbID, "until": "connected", "timeoutMs": 20000}); w["isError"] == true {
		t.Fatalf("wait connected: %v", w)
	}
	return limbID
}

// toolErrorCode is the code of a tools/call result's structured error.
func toolErrorCode(res map[string]any) string {
	sc, _ := res["structuredContent"].(map[string]any)
	e, _ := sc["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// TestInFlightCallsAreAnsweredWhenTheSessionEnds: a call still running when
// the session must end is answered, not dropped: as cancelled (TIMEOUT)
// when dvvmcp is told to stop, or when the client closed stdin and the
// call outlived the drain; and dvvd stops the withdrawn wait.
func TestInFlightCallsAreAnsweredWhenTheSessionEnds(t *testing.T) {
	t.Parallel()
	vnc := testbed.StartXvnc(t, testbed.XvncOptions{})
	d := startDvvd(t)
	cases := []struct {
		name string
		end  func(p *pipePeer, stop context.CancelFunc)
	}{
		{"stop", func(_ *pipePeer, stop context.CancelFunc) { stop() }},
		{"stdin closed, drain over", func(p *pipePeer, _ context.CancelFunc) { p.in.Close() }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			b := New(Options{Socket: d.Socket})
			p := startPipePeer(t, func(r io.ReadCloser, w io.WriteCloser) error {
				// ServeStdio's transport with a short drain, so the drain's end is reached.
				defer b.Close()
				return b.Run(context.WithoutCancel(ctx), &stdioTransport{r: r, w: w, max: MaxFrameBytes, drain: 200 * time.Millisecond, stop: ctx.Done()})
			})
			p.initialize(t, "2025-06-18")
			limbID := openLimbOverPipe(t, p, vnc.Port)
			// The screen must stay still for the whole deadline: this wait runs its 25 s.
			ops := watchOps(t, d.Socket)
			p.sendCall(t, 10, "dvv_wait", map[string]any{"limbId": limbID, "until": "screen-stable", "quietMs": 25000, "timeoutMs": 25000})
			seq := ops.started(t, limbID, wire.OpWait)
			c.end(p, stop)
			res, _ := p.answerMap(t, 10)["result"].(map[string]any)
			if res["isError"] != true || toolErrorCode(res) != "TIMEOUT" || !strings.Contains(fmt.Sprint(res["content"]), "cancelled") {
				t.Fatalf("the wait in flight was answered %v; want a TIMEOUT tool error saying it was cancelled", res)
			}
			checkOutput(t, "dvv_wait", toolResult(t, res))
			select {
			case err := <-p.ended:
				if err != nil {
					t.Errorf("the session ended with %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the session did not end after answering")
			}
			// Withdrawn, not left running to its deadline: it ends well before 25 s.
			ops.ended(t, limbID, wire.OpWait, seq)
		})
	}
}

// opWatch follows dvvd's op.start and op.end events, to see a call reach
// dvvd and end there.
type opWatch struct {
	c *client.Client
}

func watchOps(t *testing.T, socket string) *opWatch {
	t.Helper()
	c, err := client.Dial(context.Background(), socket, client.Options{Name: "op-watcher"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Subscribe(context.Background(), wire.SubscribeArgs{}); err != nil {
		t.Fatal(err)
	}
	return &opWatch{c: c}
}

// started waits for op to start on limbID and returns its event's seq.
func (w *opWatch) started(t *testing.T, limbID, op string) uint64 {
	t.Helper()
	for {
		select {
		case e, ok := <-w.c.Events():
			if !ok {
				t.Fatal("dvvd's event stream ended")
			}
			if e.Kind == "op.start" && e.LimbID == limbID && e.Detail == op {
				return e.Seq
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s never started on %s", op, limbID)
		}
	}
}

// ended waits for the op that started with seq to end.
func (w *opWatch) ended(t *testing.T, limbID, op string, seq uint64) {
	t.Helper()
	want := fmt.Sprintf("%s #%d", op, seq)
	for {
		select {
		case e, ok := <-w.c.Events():
			if !ok {
				t.Fatal("dvvd's event stream ended")
			}
			if e.Kind == "op.end" && e.LimbID == limbID && e.Detail == want {
				return
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s (%s) never ended", op, want)
		}
	}
}

// toolResult reads a raw tools/call result as the SDK's type.
func toolResult(t *testing.T, res map[string]any) *sdk.CallToolResult {
	t.Helper()
	raw, _ := json.Marshal(res)
	var r sdk.CallToolResult
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("a tools/call result that does not parse: %v\n%s", err, raw)
	}
	return &r
}
