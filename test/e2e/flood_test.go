package e2e

import (
	"encoding/binary"
	"net"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// cpuTime is the CPU this process has used, user and system.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// A server flooding cheap updates (24 bytes of RRE repainting 4 Mpx each)
// does not buy a core: decoding is bounded per limb per second, the
// signals say so, and the socket keeps answering other clients.
func TestCheapFloodIsThrottled(t *testing.T) {
	port := sizedRFB(t, 2048, 2048, func(c net.Conn) {
		upd := append([]byte{0, 0, 0, 1}, rect(0, 0, 2048, 2048, 2)...)
		upd = binary.BigEndian.AppendUint32(upd, 0) // no subrectangles
		for colour := uint32(0); ; colour++ {
			if _, err := c.Write(binary.LittleEndian.AppendUint32(slices.Clone(upd), colour|0xff000000)); err != nil {
				return
			}
		}
	})
	d := startDaemon(t)
	c := dial(t, d, "agent")
	id := openVNC(t, c, "127.0.0.1", port)
	testbed.Eventually(t, 15*time.Second, "signals report the throttle", func() bool {
		s := must(t, c, wire.SignalsArgs{Target: wire.Target{LimbID: id}}).Signals[wire.SigDecodeBudget]
		return s.Value["throttled"] == true
	})
	other := dial(t, d, "other")
	cpu0, wall0 := cpuTime(t), time.Now()
	var lat []time.Duration
	tick := time.NewTicker(20 * time.Millisecond) // pace the probe: its own cost must stay small
	defer tick.Stop()
	for time.Since(wall0) < 3*time.Second {
		<-tick.C
		t0 := time.Now()
		must(t, other, wire.StatusArgs{Target: wire.Target{LimbID: id}})
		lat = append(lat, time.Since(t0))
	}
	share := float64(cpuTime(t)-cpu0) / float64(time.Since(wall0))
	slices.Sort(lat)
	t.Logf("flooded limb: %.0f%% of a core; status latency p50 %v p95 %v over %d calls",
		share*100, lat[len(lat)/2], lat[len(lat)*95/100], len(lat))
	if share > 0.5 {
		t.Fatalf("a flood of cheap updates took %.0f%% of a core", share*100)
	}
}
