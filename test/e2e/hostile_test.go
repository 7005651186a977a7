package e2e

import (
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

func rect(x, y, w, h uint16, enc int32) []byte {
	b := make([]byte, 12)
	binary.BigEndian.PutUint16(b[0:], x)
	binary.BigEndian.PutUint16(b[2:], y)
	binary.BigEndian.PutUint16(b[4:], w)
	binary.BigEndian.PutUint16(b[6:], h)
	binary.BigEndian.PutUint32(b[8:], uint32(enc))
	return b
}

func TestHostileVNCServerFailsOnlyItsLimb(t *testing.T) {
	cases := map[string]func() []byte{
		"rect outside the framebuffer": func() []byte {
			return append([]byte{0, 0, 0, 1}, rect(60, 60, 100, 100, 0)...)
		},
		"absurd cut text length": func() []byte { return []byte{3, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff} },
		"unknown message type":   func() []byte { return []byte{250, 1, 2, 3} },
		"huge rect count of garbage": func() []byte {
			b := []byte{0, 0, 0xff, 0xff}
			for i := 0; i < 100; i++ {
				b = append(b, rect(0, 0, 64, 64, 0x7ead)...)
			}
			return b
		},
	}
	d := startDaemon(t)
	c := dial(t, d, "agent")
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for name, evil := range cases {
		port := hostileRFB(t, evil)
		r := must(t, c, wire.OpenArgs{Address: "127.0.0.1", Port: &port, Protocol: "vnc", Perceive: boolp(true)})
		// The handshake succeeds (connected), then the first update fails
		// the limb for good: its last error and state say so.
		var code wire.Code
		for i := 0; i < 200 && code == ""; i++ {
			o := must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: r.LimbID}}).Observation
			if o.State == wire.StateFailed && o.LastError != nil {
				code = o.LastError.Code
			}
			do(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "screen-changed", TimeoutMs: intp(50)})
		}
		if code != wire.ProtocolError {
			t.Errorf("%s: limb error %q, want PROTOCOL_ERROR", name, code)
		}
		must(t, c, wire.CloseArgs{LimbID: r.LimbID})
	}
	if _, err := do(t, c, wire.PingArgs{}); err != nil {
		t.Fatalf("dvvd after hostile servers: %v", client.Code(err))
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 64<<20 {
		t.Fatalf("heap grew by %d MiB after hostile servers", grew>>20)
	}
}
