package rfbserver

import (
	"context"
	"image"
	"io"
	"net"
	"testing"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
)

// FuzzViewerBytes feeds arbitrary bytes as a viewer's messages after a
// proper handshake: the session must end with an error or at the end of
// input, never panic, and never pass input on out of the frame.
func FuzzViewerBytes(f *testing.F) {
	f.Add([]byte{3, 0, 0, 0, 0, 0, 0, 100, 0, 100})
	f.Add([]byte{0, 0, 0, 0, 16, 16, 1, 1, 0, 31, 0, 63, 0, 31, 11, 5, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 8, 0, 8})
	f.Add([]byte{2, 0, 0, 2, 0, 0, 0, 16, 255, 255, 255, 33, 3, 1, 0, 0, 0, 0, 0, 9, 0, 9})
	f.Add([]byte{5, 1, 255, 255, 255, 255, 4, 1, 0, 0, 0, 0, 0, 97})
	f.Add([]byte{6, 0, 0, 0, 255, 255, 255, 255})
	f.Add([]byte{0, 0, 0, 0, 8, 8, 0, 1, 0, 7, 0, 7, 0, 3, 5, 3, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 8, 0, 8})
	// SetEncodings with ContinuousUpdates and Fence, then enabling them, a
	// fence answer, a SetDesktopSize with one screen, and a bad fence length.
	f.Add([]byte{2, 0, 0, 3, 255, 255, 254, 199, 255, 255, 254, 200, 255, 255, 254, 204, 150, 1, 0, 0, 0, 0, 0, 48, 0, 40,
		248, 0, 0, 0, 0, 0, 0, 0, 1, 'u', 251, 0, 0, 32, 0, 32, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32, 0, 32, 0, 0, 0, 0,
		248, 0, 0, 0, 0, 0, 0, 0, 200})
	f.Add([]byte{150, 1, 0, 0, 0, 0, 0, 48, 0, 40}) // enabling continuous updates nobody offered
	f.Fuzz(func(t *testing.T, msgs []byte) {
		buf := fb.New()
		buf.Resize(48, 40)
		paint(buf, image.Rect(0, 0, 48, 40), 1)
		rec := &recorder{}
		srv, cli := net.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- Serve(context.Background(), srv, Config{Buffer: buf, Input: rec, WriteTimeout: time.Second})
		}()
		go io.Copy(io.Discard, cli)
		cli.Write([]byte("RFB 003.008\n"))
		cli.Write([]byte{1, 1})
		cli.Write(msgs)
		cli.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("the session did not end when the viewer left")
		}
		rec.mu.Lock()
		defer rec.mu.Unlock()
		for _, p := range rec.pts {
			if p.X < 0 || p.Y < 0 || p.X >= 48 || p.Y >= 40 {
				t.Fatalf("pointer %v passed on outside the frame", p)
			}
		}
	})
}
