package viewer

import (
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestSilentConnectionsCannotLockOut: with the cap full of connections
// that never send a request, a real request still gets through (the
// oldest silent one makes room), and the server never holds more than the
// cap.
func TestSilentConnectionsCannotLockOut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })}
	capped := limit(srv, ln).(*capListener)
	capped.cap = func() int { return 4 }
	go srv.Serve(capped)
	t.Cleanup(func() { srv.Close() })
	var silent []net.Conn
	for i := 0; i < 12; i++ {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		silent = append(silent, c)
		t.Cleanup(func() { c.Close() })
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for i := 0; i < 3; i++ {
		resp, err := client.Get("http://" + ln.Addr().String() + "/")
		if err != nil {
			t.Fatalf("request %d behind 12 silent connections: %v", i+1, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "ok" {
			t.Fatalf("request %d: %q", i+1, b)
		}
	}
	capped.mu.Lock()
	open := len(capped.open)
	capped.mu.Unlock()
	if open > 4 {
		t.Fatalf("the server holds %d connections; the cap is 4", open)
	}
	closed := 0
	for _, c := range silent {
		c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); err == io.EOF {
			closed++
		}
	}
	if closed < len(silent)-4 {
		t.Fatalf("only %d of %d silent connections were let go", closed, len(silent))
	}
}

func TestConnCapFollowsTheDescriptorLimit(t *testing.T) {
	if n := connCap(); n < 16 || n > 512 {
		t.Fatalf("connCap %d is outside 16..512", n)
	}
}
