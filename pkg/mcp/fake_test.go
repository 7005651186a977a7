package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dvvhq/dvv/internal/wiretest"
	"github.com/dvvhq/dvv/pkg/wire"
)

// fakeDaemon answers socket requests with canned wire.Responses. It tests
// only the bridge's own mapping (arguments in, results out, reconnects);
// protocol behaviour is tested against the real dvvd in e2e_test.go.
type fakeDaemon struct {
	t    *testing.T
	path string
	pid  int
	ln   net.Listener

	mu       sync.Mutex
	conns    []net.Conn
	attaches []lineReq
	requests []lineReq
}

// lineReq is a request line as these tests read it: the fields they look
// at, by JSON name.
type lineReq struct {
	Op            string          `json:"op"`
	ID            json.RawMessage `json:"id"`
	Name          string          `json:"name"`
	Token         string          `json:"token"`
	Session       string          `json:"session"`
	LimbID        string          `json:"limbId"`
	GroupID       string          `json:"groupId"`
	Member        *int            `json:"member"`
	Action        string          `json:"action"`
	Generation    *uint64         `json:"generation"`
	X             *int            `json:"x"`
	Y             *int            `json:"y"`
	ToX           *int            `json:"toX"`
	Button        string          `json:"button"`
	Modifiers     []string        `json:"modifiers"`
	Region        *wire.Region    `json:"region"`
	Format        string          `json:"format"`
	Scale         *float64        `json:"scale"`
	Arguments     json.RawMessage `json:"arguments"`
	Protocol      string          `json:"protocol"`
	Port          *int            `json:"port"`
	Perceive      *bool           `json:"perceive"`
	Mode          *int            `json:"mode"`
	ContentBase64 string          `json:"contentBase64"`
}

// lineOf is the line a client sends for a, as these tests read it.
func lineOf(t *testing.T, a wire.Args) *lineReq {
	t.Helper()
	line, err := json.Marshal(wire.Envelop(a))
	if err != nil {
		t.Fatal(err)
	}
	var r lineReq
	if err := json.Unmarshal(line, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

func startFake(t *testing.T, path string, pid int) *fakeDaemon {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	d := &fakeDaemon{t: t, path: path, pid: pid, ln: ln}
	go d.serve()
	t.Cleanup(d.stop)
	return d
}

func (d *fakeDaemon) serve() {
	for {
		c, err := d.ln.Accept()
		if err != nil {
			return
		}
		d.mu.Lock()
		d.conns = append(d.conns, c)
		d.mu.Unlock()
		go d.handle(c)
	}
}

// stop closes the listener and every connection, as a dying dvvd would.
func (d *fakeDaemon) stop() {
	d.ln.Close()
	d.mu.Lock()
	for _, c := range d.conns {
		c.Close()
	}
	d.conns = nil
	d.mu.Unlock()
}

func (d *fakeDaemon) handle(c net.Conn) {
	r := bufio.NewReaderSize(c, 1<<20)
	w := bufio.NewWriter(c)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		var req lineReq
		if err := json.Unmarshal(line, &req); err != nil {
			d.t.Errorf("fake dvvd got a malformed line: %v", err)
			return
		}
		resp := d.answer(&req)
		resp.ID = req.ID
		b, _ := json.Marshal(resp)
		w.Write(append(b, '\n'))
		w.Flush()
	}
}

func (d *fakeDaemon) seen() (attaches, requests []lineReq) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]lineReq(nil), d.attaches...), append([]lineReq(nil), d.requests...)
}

func fakeObservation(limb string) *wire.Observation {
	return &wire.Observation{Schema: wire.ObservationSchema, LimbID: limb, Protocol: "vnc", Kind: "desktop", State: "connected",
		Size: wire.Size{W: 64, H: 48}, Geometry: wire.Geometry{Generation: 3, Width: 64, Height: 48}, Coverage: 1}
}

func testPNG(w, h int) string {
	var b bytes.Buffer
	png.Encode(&b, image.NewRGBA(image.Rect(0, 0, w, h)))
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

func (d *fakeDaemon) answer(req *lineReq) *wiretest.Response {
	d.mu.Lock()
	if req.Op == wire.OpAttach {
		d.attaches = append(d.attaches, *req)
	} else {
		d.requests = append(d.requests, *req)
	}
	d.mu.Unlock()
	errorf := func(code wire.Code, msg string) *wiretest.Response {
		return &wiretest.Response{Result: wire.ResultError, Code: code, Message: msg, Next: code.Info().Next}
	}
	switch req.Op {
	case wire.OpAttach:
		return &wiretest.Response{Result: req.Op, Daemon: &wire.DaemonInfo{PID: d.pid, Attachment: req.Name, Protocol: wire.ProtocolVersion}}
	case wire.OpStatus:
		if req.LimbID != "vnc-1" {
			return errorf(wire.LimbGone, "no limb "+req.LimbID)
		}
		return &wiretest.Response{Result: req.Op, LimbID: req.LimbID, Observation: fakeObservation(req.LimbID)}
	case wire.OpClick:
		if req.Generation == nil {
			return errorf(wire.Unfenced, "click without a generation")
		}
		if *req.Generation != 3 {
			r := errorf(wire.GeometryChanged, "generation 2 is stale; the framebuffer is now generation 3")
			r.Observation = fakeObservation(req.LimbID)
			return r
		}
		return &wiretest.Response{Result: req.Op, Dispatched: "click at 1,1", Observation: fakeObservation(req.LimbID)}
	case wire.OpScreen:
		return &wiretest.Response{Result: req.Op, Screen: &wire.Screen{Mime: "image/png", DataBase64: testPNG(64, 48), Width: 64, Height: 48,
			ImageSpaceLine: "imageSpace: region 0,0 64x48 of native 64x48, scale 1", Generation: 3, Coverage: 1,
			ImageSpace: wire.ImageSpace{Region: wire.Region{W: 64, H: 48}, Scale: 1, Native: wire.Size{W: 64, H: 48}}}}
	case wire.OpGroupRun:
		return &wiretest.Response{Result: req.Op, Members: []wire.MemberResult{
			{Index: 0, LimbID: "vnc-1", Response: memberLine(&wiretest.Response{Result: "screen", Screen: &wire.Screen{Mime: "image/png", DataBase64: testPNG(8, 8), Width: 8, Height: 8, ImageSpaceLine: "m0"}})},
			{Index: 1, LimbID: "vnc-2", Response: memberLine(errorf(wire.NotReady, "still connecting"))},
		}}
	}
	return &wiretest.Response{Result: req.Op}
}

// memberLine is a group_run member's answer line.
func memberLine(r *wiretest.Response) json.RawMessage {
	b, err := json.Marshal(r)
	if err != nil {
		panic(err)
	}
	return b
}

// connectBridge runs a bridge on an in-memory transport and returns an SDK
// client session to it.
func connectBridge(t *testing.T, opts Options, clientName string) (*Bridge, *sdk.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ct, st := sdk.NewInMemoryTransports()
	b := New(opts)
	done := make(chan struct{})
	go func() { b.Run(ctx, st); close(done) }()
	c := sdk.NewClient(&sdk.Implementation{Name: clientName, Version: "1"}, nil)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); cancel(); <-done })
	return b, cs
}

func call(t *testing.T, cs *sdk.ClientSession, name string, args any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	checkOutput(t, name, res)
	return res
}

// sockPath is a socket path in a private directory, as clients require.
func sockPath(t *testing.T) string {
	dir := t.TempDir()
	os.Chmod(dir, 0o700)
	return filepath.Join(dir, "d.sock")
}
