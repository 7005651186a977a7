package e2e

import (
	"crypto/rand"
	"encoding/binary"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/daemon"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/limb/vnc"
	"github.com/dvvhq/dvv/pkg/wire"
)

// noiseFrame is one Raw update of random pixels over the whole desktop:
// nothing compresses it.
func noiseFrame(w, h int) []byte {
	b := make([]byte, 4+12+w*h*4)
	b[0], b[3] = 0, 1
	binary.BigEndian.PutUint16(b[8:], uint16(w))
	binary.BigEndian.PutUint16(b[10:], uint16(h))
	rand.Read(b[16:])
	return b
}

// A screen too big to answer inline is TOO_LARGE with the way out (scale,
// out) in the message, not an answer over the client's line limit.
func TestInlineScreenIsCapped(t *testing.T) {
	port := sizedRFB(t, 4096, 4096, func(c net.Conn) {
		c.Write(noiseFrame(4096, 4096))
		io.Copy(io.Discard, c)
	})
	d := startDaemon(t)
	c := dial(t, d, "agent")
	id := openVNC(t, c, "127.0.0.1", port)
	_, err := do(t, c, wire.ScreenArgs{Target: wire.Target{LimbID: id}})
	if client.Code(err) != wire.TooLarge || !strings.Contains(err.Error(), "scale") || !strings.Contains(err.Error(), "out") {
		t.Fatalf("4096x4096 of noise inline: %v", err)
	}
	s := must(t, c, wire.ScreenArgs{Target: wire.Target{LimbID: id}, Scale: f64p(0.25)})
	if s.Screen.Width != 1024 || s.Screen.DataBase64 == "" {
		t.Fatalf("scaled screen %dx%d", s.Screen.Width, s.Screen.Height)
	}
	out := filepath.Join(t.TempDir(), "big.png")
	s = must(t, c, wire.ScreenArgs{Target: wire.Target{LimbID: id}, Out: out})
	if st, err := os.Stat(out); err != nil || st.Size() < 32<<20 || s.Screen.Path != out {
		t.Fatalf("screen to a file: %v", err)
	}
}

// The framebuffer a server may announce is bounded by a limit the daemon
// is configured with; beyond it the limb fails PROTOCOL_ERROR naming it,
// before anything of that size is allocated.
func TestAnnouncedFramebufferIsBounded(t *testing.T) {
	for name, announce := range map[string]func(c net.Conn){
		"at connect": nil,
		"by a DesktopSize update": func(c net.Conn) {
			// 512x512 fits; then a DesktopSize pseudo-rectangle to 4096x4096.
			c.Write(append([]byte{0, 0, 0, 1}, rect(0, 0, 4096, 4096, -223)...))
			io.Copy(io.Discard, c)
		},
	} {
		t.Run(name, func(t *testing.T) {
			w, h := 4096, 4096
			if announce != nil {
				w, h = 512, 512
			} else {
				announce = func(c net.Conn) { io.Copy(io.Discard, c) }
			}
			port := sizedRFB(t, w, h, announce)
			dir := filepath.Join(t.TempDir(), "sock")
			os.Mkdir(dir, 0o700)
			d := daemon.New(daemon.Config{SocketPath: filepath.Join(dir, "e2e.sock"),
				Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
				Desktop: map[string]limb.DesktopDialer{wire.ProtoVNC: vnc.Dial}, MaxFramebufferPixels: 1024 * 1024})
			if err := d.Listen(); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() { d.Serve(); close(done) }()
			t.Cleanup(func() { d.Shutdown(); <-done })
			c := dial(t, d, "agent")
			r := must(t, c, wire.OpenArgs{Address: "127.0.0.1", Port: &port, Protocol: "vnc", Perceive: boolp(true)})
			testbed.Eventually(t, 20*time.Second, "the limb fails", func() bool {
				return must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: r.LimbID}}).Observation.State == wire.StateFailed
			})
			o := must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: r.LimbID}}).Observation
			if o.LastError == nil || o.LastError.Code != wire.ProtocolError || !strings.Contains(o.LastError.Message, "1048576") {
				t.Fatalf("limb error %+v", o.LastError)
			}
		})
	}
}
