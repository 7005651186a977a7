package viewer

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bigDesktopFBS is an FBS recording of a w x h desktop that is painted
// whole at 0 ms and again at 500 ms, in Raw.
func bigDesktopFBS(w, h uint16) []byte {
	var out bytes.Buffer
	out.WriteString("FBS 001.000\n")
	block := func(ms uint32, b []byte) {
		binary.Write(&out, binary.BigEndian, uint32(len(b)))
		out.Write(b)
		out.Write(make([]byte, (4-len(b)%4)%4))
		binary.Write(&out, binary.BigEndian, ms)
	}
	hs := []byte("RFB 003.008\n")
	hs = append(hs, 1, 1, 0, 0, 0, 0)
	hs = binary.BigEndian.AppendUint16(hs, w)
	hs = binary.BigEndian.AppendUint16(hs, h)
	hs = append(hs, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 0, 8, 16, 0, 0, 0)
	hs = binary.BigEndian.AppendUint32(hs, 1)
	block(0, append(hs, 'x'))
	for i, ms := range []uint32{0, 500} {
		b := []byte{0, 0, 0, 1, 0, 0, 0, 0}
		b = binary.BigEndian.AppendUint16(b, w)
		b = binary.BigEndian.AppendUint16(b, h)
		b = append(b, 0, 0, 0, 0)
		pix := make([]byte, 4*int(w)*int(h))
		rand.NewChaCha8([32]byte{byte(i)}).Read(pix) // noise: its PNG is as big as the picture
		b = append(b, pix...)
		block(ms, b)
	}
	return out.Bytes()
}

// Many /frame requests at once for a big desktop's recording, from
// clients that never read the answer, cost a bounded amount of memory:
// frames are rendered a few at a time, and a picture is not held for a
// client that does not read it.
func TestRecordingFramesAtOnceBoundMemory(t *testing.T) {
	dir := t.TempDir()
	const w, h = 2048, 1024 // 8 MiB a picture
	name := "vnc-1-20261201T130624.533.fbs"
	if err := os.WriteFile(filepath.Join(dir, name), bigDesktopFBS(w, h), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Start(recordingsOnly{dir: dir}, 0, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	request := func(ms int) net.Conn {
		c, err := net.Dial("tcp", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		// A small receive window, never read: the answer stays in dvvd.
		c.(*net.TCPConn).SetReadBuffer(4096)
		fmt.Fprintf(c, "GET /api/recordings/%s/frame?ms=%d HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", name, ms, s.Addr(), s.readOnly)
		return c
	}
	first := request(0) // the player loaded, its first frame decoded
	io.Copy(io.Discard, io.LimitReader(first, 1))
	first.Close()
	defer debug.SetGCPercent(debug.SetGCPercent(5)) // the heap follows what is live
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	base := m.HeapInuse
	const clients = 16
	for i := 0; i < clients; i++ {
		defer request(500 * (i % 2)).Close()
	}
	var peak uint64
	for deadline := time.Now().Add(4 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		runtime.GC()
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapInuse)
	}
	grown := int64(peak) - int64(base)
	picture := int64(w * h * 4)
	t.Logf("%d frames asked at once, never read: heap grew %d MiB (a picture is %d MiB)", clients, grown>>20, picture>>20)
	if grown > 5*picture {
		t.Fatalf("%d unread frames hold %d pictures; want a few at most", clients, grown/picture)
	}
}

// Clients that ask for frames and never read them hold the rendering
// slots for a bounded time only: a page asking after them gets its frame.
func TestUnreadFramesDoNotStallThePage(t *testing.T) {
	dir := t.TempDir()
	name := "vnc-1-20261201T130624.533.fbs"
	if err := os.WriteFile(filepath.Join(dir, name), bigDesktopFBS(2048, 1024), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Start(recordingsOnly{dir: dir}, 0, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := 0; i < maxRenders+2; i++ {
		c, err := net.Dial("tcp", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.(*net.TCPConn).SetReadBuffer(4096)
		fmt.Fprintf(c, "GET /api/recordings/%s/frame?ms=%d HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", name, 500*(i%2), s.Addr(), s.readOnly)
	}
	time.Sleep(time.Second) // they hold the slots
	req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://%s/api/recordings/%s/frame?ms=0", s.Addr(), name), nil)
	req.Header.Set("Authorization", "Bearer "+s.full)
	client := &http.Client{Timeout: 90 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("the page's frame behind unread ones: %v", err)
	}
	defer resp.Body.Close()
	if n, _ := io.Copy(io.Discard, resp.Body); resp.StatusCode != 200 || n < 1000 {
		t.Fatalf("the page's frame behind unread ones: HTTP %d, %d bytes", resp.StatusCode, n)
	}
}

// A named pipe in the recordings directory, as a recording or as an act
// log, is no recording: the routes answer at once instead of waiting for
// a writer that never comes.
func TestRecordingRoutesDoNotWaitOnAPipe(t *testing.T) {
	dir := t.TempDir()
	media := "ssh-1-20261201T130624.533.cast"
	os.WriteFile(filepath.Join(dir, media), []byte(`{"version":2,"width":80,"height":24}`+"\n"), 0o600)
	for _, p := range []string{"ssh-1-20261201T130624.533.acts.jsonl", "vnc-2-20261201T130624.533.fbs", "ssh-3-20261201T130624.533.cast"} {
		if err := syscall.Mkfifo(filepath.Join(dir, p), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Start(recordingsOnly{dir: dir}, 0, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	client := &http.Client{Timeout: 10 * time.Second}
	for _, path := range []string{"/api/recordings", "/api/recordings/" + media + "/acts",
		"/api/recordings/vnc-2-20261201T130624.533.fbs/frame?ms=0", "/api/recordings/vnc-2-20261201T130624.533.fbs/meta",
		"/api/recordings/ssh-3-20261201T130624.533.cast/cast", "/api/recordings/ssh-3-20261201T130624.533.cast/meta"} {
		req, _ := http.NewRequest(http.MethodGet, "http://"+s.Addr()+path, nil)
		req.Header.Set("Authorization", "Bearer "+s.full)
		resp, err := client.Do(req)
		if err != nil {
			t.Errorf("GET %s: %v", path, err)
			continue
		}
		resp.Body.Close()
		want := http.StatusNotFound
		if strings.HasSuffix(path, "/recordings") || strings.HasSuffix(path, "/acts") {
			want = http.StatusOK // the listing leaves the pipe out; an act log that is a pipe is no acts
		}
		if resp.StatusCode != want {
			t.Errorf("GET %s: HTTP %d, want %d", path, resp.StatusCode, want)
		}
	}
}
