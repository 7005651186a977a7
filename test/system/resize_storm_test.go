package system_test

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dvvhq/dvv/pkg/rfb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// resizeStormRFB is a hostile VNC server: after an RFB 3.8 handshake
// (security None, a 64x64 desktop) it flips the desktop between 8192x4096
// and 1x1 with DesktopSize updates every 20 ms, at most flips times, and
// then stays silent until the client hangs up. It counts the flips it sent.
func resizeStormRFB(t *testing.T, flips int, sent *int64, mu *sync.Mutex) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.Write([]byte("RFB 003.008\n"))
				buf := make([]byte, 12)
				if _, err := io.ReadFull(c, buf); err != nil {
					return
				}
				c.Write([]byte{1, 1})
				if _, err := io.ReadFull(c, buf[:1]); err != nil {
					return
				}
				c.Write([]byte{0, 0, 0, 0})
				if _, err := io.ReadFull(c, buf[:1]); err != nil {
					return
				}
				c.Write([]byte{0, 64, 0, 64, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 0, 8, 16, 0, 0, 0, 0, 0, 0, 5, 's', 't', 'o', 'r', 'm'})
				go io.Copy(io.Discard, c)
				for i := 0; i < flips; i++ {
					w, h := 8192, 4096
					if i%2 == 1 {
						w, h = 1, 1
					}
					msg := []byte{0, 0, 0, 1, 0, 0, 0, 0, byte(w >> 8), byte(w), byte(h >> 8), byte(h), 0, 0, 0, 0}
					binary.BigEndian.PutUint32(msg[12:], uint32(0xffffff21)) // DesktopSize, -223
					if _, err := c.Write(msg); err != nil {
						return
					}
					mu.Lock()
					*sent++
					mu.Unlock()
					time.Sleep(20 * time.Millisecond)
				}
				io.Copy(io.Discard, c)
			}()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port
}

// TestResizeStorm: a VNC server flipping its desktop
// between 8192x4096 and 1x1 every 20 ms costs dvvd at most a few frames of
// memory at its peak, the limb fails with PROTOCOL_ERROR naming the resize
// storm, and dvvd hands the memory back after the limb is closed. The
// same holds with a recording and a share viewer following the limb.
func TestResizeStorm(t *testing.T) {
	t.Run("limb", func(t *testing.T) { resizeStorm(t, false) })
	t.Run("watched", func(t *testing.T) { resizeStorm(t, true) })
}

func resizeStorm(t *testing.T, watched bool) {
	const flips = 600
	const frameKiB = 8192 * 4096 * 4 >> 10 // one 8192x4096 RGBA frame
	var (
		mu   sync.Mutex
		sent int64
	)
	port := resizeStormRFB(t, flips, &sent, &mu)
	d := startDaemon(t, "")
	pid := d.proc.Cmd.Process.Pid
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
			case <-time.After(10 * time.Millisecond):
			}
			if r := rssOf(pid); r > 0 {
				peakMu.Lock()
				peak = max(peak, r)
				peakMu.Unlock()
			}
		}
	}()

	limb := strings.TrimSpace(d.must("open", "127.0.0.1:"+strconv.Itoa(port), "--protocol", "vnc", "--perceive", "--wait").stdout)
	if watched {
		d.must("record", "start", limb)
		sh := d.dvv("share", limb, "--json")
		if sh.code != 0 {
			t.Fatalf("%v", sh)
		}
		sock := response(t, sh).Share.Socket
		conn, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		v, err := rfb.NewClient(context.Background(), conn, &rfb.Config{Shared: true, Encodings: []int32{rfb.EncZRLE}})
		if err != nil {
			t.Fatal(err)
		}
		go v.Run()
		defer v.Close()
	}
	var last *wire.LimbError
	var state string
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		o := response(t, d.must("status", limb, "--json")).Observation
		state, last = o.State, o.LastError
		if state == wire.StateFailed {
			break
		}
		mu.Lock()
		done := sent >= flips
		mu.Unlock()
		if done && state == wire.StateConnected {
			break // the whole storm was taken: it was never refused
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Sample through the rest of the storm as well: what dvvd read before
	// refusing it may still be settling.
	time.Sleep(time.Second)
	close(stopSampling)
	<-sampled
	mu.Lock()
	t.Logf("dvvd VmRSS: before %d MiB, peak %d MiB; the server sent %d of %d flips", before>>10, peak>>10, sent, flips)
	mu.Unlock()
	if state != wire.StateFailed || last == nil || last.Code != wire.ProtocolError || !strings.Contains(last.Message, "resize storm") {
		t.Errorf("limb state %q, last error %+v; want failed with PROTOCOL_ERROR naming the resize storm", state, last)
	}
	// At most three frames live at once: the decoder's surface, the mirror
	// and one being replaced.
	if grew := peak - before; grew > 3*frameKiB {
		t.Errorf("dvvd grew by %d MiB at its peak during the resize storm; the bound is 3 frames, %d MiB", grew>>10, 3*frameKiB>>10)
	}
	if st := d.must("ping"); st.code != 0 {
		t.Fatalf("%v", st)
	}

	d.must("close", limb)
	var after int
	ok := false
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if after = vmRSS(t, pid); after < before+frameKiB/4 {
			ok = true
			break
		}
	}
	t.Logf("dvvd VmRSS after close: %d MiB (before %d MiB)", after>>10, before>>10)
	if !ok {
		t.Errorf("dvvd still holds %d MiB after the limb was closed (%d MiB before it was opened)", after>>10, before>>10)
	}
}
