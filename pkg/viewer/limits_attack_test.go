package viewer

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
)

// TestBusyConnectionsOfAnotherUserCannotLockOut: another user fills the
// cap with connections that each ask for a page and never read it, so
// none is ever idle. The person's browser (dvvd's own user) still gets
// its page, in the place of one of them, and another newcomer of that
// other user is turned away.
func TestBusyConnectionsOfAnotherUserCannotLockOut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	page := strings.Repeat("x", 8<<20) // bigger than every socket buffer on the way
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/small" {
			io.WriteString(w, "ok")
			return
		}
		io.WriteString(w, page)
	})}
	capped := limit(srv, ln).(*capListener)
	capped.cap = func() int { return 4 }
	const person, other = 1000, 2000
	var next atomic.Int64
	next.Store(other)
	capped.own = person
	capped.peerUID = func(net.Conn) int { return int(next.Load()) }
	go srv.Serve(capped)
	t.Cleanup(func() { srv.Close() })

	busy := func() net.Conn {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.(*net.TCPConn).SetReadBuffer(4096)
		fmt.Fprintf(c, "GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
		return c
	}
	for i := 0; i < 4; i++ {
		defer busy().Close()
	}
	testbed.Eventually(t, 10*time.Second, "the 4 connections to be busy", func() bool {
		capped.mu.Lock()
		defer capped.mu.Unlock()
		n := 0
		for c := range capped.open {
			if c.state == http.StateActive {
				n++
			}
		}
		return n == 4
	})
	get := func() error {
		client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := client.Get("http://" + ln.Addr().String() + "/small")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if b, _ := io.ReadAll(resp.Body); string(b) != "ok" {
			return fmt.Errorf("answer %q", b)
		}
		return nil
	}
	if err := get(); err == nil {
		t.Fatal("another user's newcomer got in past 4 busy connections of its own; want it closed")
	}
	next.Store(person)
	for i := 0; i < 3; i++ {
		if err := get(); err != nil {
			t.Fatalf("the person's request %d behind 4 busy connections of another user: %v", i+1, err)
		}
	}
}

// TestAnotherUsersFloodNeverClosesThePersonsConnections: the person's
// browser has connections open, one not yet sent its request; another
// user then opens many silent connections. Each newcomer of theirs makes
// room by closing one of their own, never one of the person's.
func TestAnotherUsersFloodNeverClosesThePersonsConnections(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })}
	capped := limit(srv, ln).(*capListener)
	capped.cap = func() int { return 4 }
	const person, other = 1000, 2000
	var next atomic.Int64
	next.Store(person)
	capped.own = person
	capped.peerUID = func(net.Conn) int { return int(next.Load()) }
	go srv.Serve(capped)
	t.Cleanup(func() { srv.Close() })
	dial := func() net.Conn {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	persons := []net.Conn{dial(), dial()} // accepted, no request yet
	testbed.Eventually(t, 10*time.Second, "the person's connections to be accepted", func() bool {
		capped.mu.Lock()
		defer capped.mu.Unlock()
		return len(capped.open) == 2
	})
	next.Store(other)
	for i := 0; i < 40; i++ {
		dial()
	}
	testbed.Eventually(t, 10*time.Second, "the flood to be accepted", func() bool {
		capped.mu.Lock()
		defer capped.mu.Unlock()
		n := 0
		for c := range capped.open {
			if c.uid == other {
				n++
			}
		}
		return n == 2
	})
	for i, c := range persons {
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		b, _ := io.ReadAll(c)
		if !strings.HasSuffix(string(b), "ok") {
			t.Fatalf("the person's connection %d after another user's flood: %q", i+1, b)
		}
	}
}
