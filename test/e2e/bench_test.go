package e2e

import (
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// BenchmarkStatusVNC is a status round trip on a live Xvnc limb, with dvvd
// in this process so a CPU profile covers both sides.
func BenchmarkStatusVNC(b *testing.B) {
	t := &testing.T{}
	v := testbed.StartXvnc(b, testbed.XvncOptions{Width: 1024, Height: 768})
	d := startDaemon(t)
	defer d.Shutdown()
	c := dial(t, d, "bench")
	id := openVNC(t, c, "127.0.0.1", v.Port)
	req := wire.StatusArgs{Target: wire.Target{LimbID: id}}
	// One set-up for every b.N the framework tries.
	b.Run("status", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := c.Status(b.Context(), req); err != nil {
				b.Fatal(err)
			}
		}
	})
}
