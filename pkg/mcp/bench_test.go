package mcp

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// benchLimb starts dvvd and, when Xvnc is there and dvvd speaks VNC, a
// connected desktop limb to read the status of. Without one, status is
// asked of a missing limb: the same round trip, answered LIMB_GONE.
func benchLimb(b *testing.B) (socket, limbID string) {
	b.Helper()
	d := startDvvd(b)
	limbID = "vnc-none"
	if _, err := exec.LookPath("Xvnc"); err != nil {
		return d.Socket, limbID
	}
	vnc := testbed.StartXvnc(b, testbed.XvncOptions{Width: 640, Height: 480})
	c, err := client.Dial(context.Background(), d.Socket, client.Options{Name: "bench-setup"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	port, yes := vnc.Port, true
	resp, err := c.Open(context.Background(), wire.OpenArgs{Address: "127.0.0.1", Port: &port, Protocol: "vnc", Perceive: &yes})
	if err != nil {
		b.Logf("dvvd cannot open a VNC limb (%v); measuring status of a missing limb", err)
		return d.Socket, limbID
	}
	limbID = resp.LimbID
	if limbID == "" && resp.Observation != nil {
		limbID = resp.Observation.LimbID
	}
	until, ms := "connected", 20000
	c.Wait(context.Background(), wire.WaitArgs{Target: wire.Target{LimbID: limbID}, Until: until, TimeoutMs: &ms})
	return d.Socket, limbID
}

// measure runs fn b.N times and reports the median and 99th percentile.
func measure(b *testing.B, fn func()) {
	b.Helper()
	for range 50 { // warm caches and connections
		fn()
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		fn()
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkStatusSocket is dvv_status's op sent straight on dvvd's socket.
func BenchmarkStatusSocket(b *testing.B) {
	socket, limb := benchLimb(b)
	c, err := client.Dial(context.Background(), socket, client.Options{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	req := wire.StatusArgs{Target: wire.Target{LimbID: limb}}
	measure(b, func() {
		if _, err := c.Status(context.Background(), req); err != nil && client.Code(err) != wire.LimbGone {
			b.Fatal(err)
		}
	})
}

// BenchmarkStatusBridge is tools/call dvv_status through the dvvmcp binary
// over stdio, as an MCP client runs it.
func BenchmarkStatusBridge(b *testing.B) {
	socket, limb := benchLimb(b)
	ctx := context.Background()
	c := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.CommandTransport{Command: exec.Command(binary(b, "dvvmcp"), "--socket", socket)}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	params := &sdk.CallToolParams{Name: "dvv_status", Arguments: map[string]any{"limbId": limb}}
	measure(b, func() {
		if _, err := cs.CallTool(ctx, params); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkDecodeClick is the bridge's own argument check for a click.
func BenchmarkDecodeClick(b *testing.B) {
	tool, _ := Lookup("dvv_click")
	raw := json.RawMessage(`{"limbId":"vnc-1a2b3c","generation":3,"action":"click","x":120,"y":48,"modifiers":["ctrl"]}`)
	b.ReportAllocs()
	for range b.N {
		if _, werr := tool.Decode(raw); werr != nil {
			b.Fatal(werr)
		}
	}
}

// BenchmarkStatusBridgeInProcess is the same call with the bridge in this
// process on an in-memory transport: the bridge's own cost without the
// extra process and pipes.
func BenchmarkStatusBridgeInProcess(b *testing.B) {
	socket, limb := benchLimb(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ct, st := sdk.NewInMemoryTransports()
	br := New(Options{Socket: socket})
	go br.Run(ctx, st)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	params := &sdk.CallToolParams{Name: "dvv_status", Arguments: map[string]any{"limbId": limb}}
	measure(b, func() {
		if _, err := cs.CallTool(ctx, params); err != nil {
			b.Fatal(err)
		}
	})
}
