package system_test

import (
	"context"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/rfb"
)

// vmRSS is a process's resident memory in KiB, from /proc/PID/status.
func vmRSS(t *testing.T, pid int) int {
	t.Helper()
	n := rssOf(pid)
	if n == 0 {
		t.Fatalf("no VmRSS for pid %d in /proc", pid)
	}
	return n
}

// rssOf is vmRSS for a sampler beside the test: 0 once the process is
// gone, never a test failure from another goroutine.
func rssOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return n
		}
	}
	return 0
}

// shareClientBoundKiB is the memory docs/security.md states one share or
// browser viewer may cost dvvd on an 8192x4096 desktop.
const shareClientBoundKiB = 16 << 10

// TestShareClientsOnABigDesktop: eight RFB viewers on a share of an
// 8192x4096 Xvnc limb each ask for three full updates (half in Raw, half
// in ZRLE). dvvd's resident memory grows by at most the stated bound per
// viewer, and within a minute of them leaving it is back within 20% of
// what it was before they came.
func TestShareClientsOnABigDesktop(t *testing.T) {
	const w, h, viewers, fulls = 8192, 4096, 8, 3
	x := testbed.StartXvnc(t, testbed.XvncOptions{Width: w, Height: h})
	d := startDaemon(t, "")
	limb := strings.TrimSpace(d.must("open", x.Addr, "--protocol", "vnc", "--wait").stdout)
	testbed.Eventually(t, 60*time.Second, "the limb's first full frame", func() bool {
		return response(t, d.must("status", limb, "--json")).Observation.Coverage >= 1
	})
	sock := response(t, d.must("share", limb, "--json")).Share.Socket
	pid := d.proc.Cmd.Process.Pid
	time.Sleep(3 * time.Second) // let the first frame's decoding garbage settle
	before := vmRSS(t, pid)

	var peakMu sync.Mutex
	peak := before
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stopSampling:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if r := vmRSS(t, pid); r > 0 {
				peakMu.Lock()
				peak = max(peak, r)
				peakMu.Unlock()
			}
		}
	}()
	var clients []*rfb.Client
	for i := 0; i < viewers; i++ {
		conn, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		encs := []int32{rfb.EncZRLE}
		if i%2 == 1 {
			encs = []int32{rfb.EncRaw}
		}
		v, err := rfb.NewClient(context.Background(), conn, &rfb.Config{Shared: true, Encodings: encs})
		if err != nil {
			t.Fatal(err)
		}
		go v.Run()
		clients = append(clients, v)
	}
	var wg sync.WaitGroup
	for _, v := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A full update has arrived when every tile of the viewer's
			// framebuffer was painted since the request.
			painted := v.Framebuffer().NewTracker()
			defer painted.Close()
			for range fulls {
				painted.Take()
				v.RequestUpdate(false, 0, 0, w, h)
				testbed.Eventually(t, 2*time.Minute, "a full update", func() bool { return painted.Peek().Share >= 1 })
			}
		}()
	}
	wg.Wait()
	during := vmRSS(t, pid)
	for _, v := range clients {
		v.Close()
	}
	close(stopSampling)
	<-sampled
	perClient := (peak - before) / viewers
	t.Logf("dvvd VmRSS: before %d MiB, with %d share viewers %d MiB (peak %d MiB, %d MiB per viewer)", before>>10, viewers, during>>10, peak>>10, perClient>>10)
	if perClient > shareClientBoundKiB {
		t.Errorf("each share viewer cost dvvd %d MiB; the stated bound is %d MiB", perClient>>10, shareClientBoundKiB>>10)
	}
	var after int
	testbed.Eventually(t, 60*time.Second, "dvvd's memory to come back within 20% after the viewers left", func() bool {
		after = vmRSS(t, pid)
		if after > before*6/5 {
			time.Sleep(time.Second)
			return false
		}
		return true
	})
	t.Logf("dvvd VmRSS after the viewers left: %d MiB (before %d MiB)", after>>10, before>>10)
	if st := d.must("status", limb); st.code != 0 {
		t.Fatalf("%v", st)
	}
}
