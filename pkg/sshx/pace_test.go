package sshx

import (
	"bytes"
	"io"
	"math/rand"
	"net"
	"testing"
)

func TestBurst(t *testing.T) {
	for _, c := range []struct {
		n    int
		want bool
	}{
		{0, false}, {1, false}, {40, false}, {paceMin - 1, false}, // an echo, a prompt
		{paceMin, true}, {4095, true}, {8192 + 100, true}, {paceMax - 1, true}, // a few PTY packets
		{paceMax, false}, {readBuffer, false}, // the socket had plenty queued: reading is the bottleneck
	} {
		if got := burst(c.n); got != c.want {
			t.Errorf("burst(%d) = %v, want %v", c.n, got, c.want)
		}
	}
}

// TestPacedReadsDeliverEverything: bytes written in bursts of every size
// on a real socket arrive whole and in order through the paced, buffered
// reader the SSH connection uses.
func TestPacedReadsDeliverEverything(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	r := rand.New(rand.NewSource(1))
	data := make([]byte, 3<<20)
	r.Read(data)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		for at := 0; at < len(data); {
			n := min(len(data)-at, []int{1, 100, 4095, 9000, 70000}[r.Intn(5)])
			if _, err := c.Write(data[at : at+n]); err != nil {
				return
			}
			at += n
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	h := newHeardConn(c)
	got := make([]byte, len(data))
	// Reads of the sizes x/crypto/ssh makes: its 4 KiB buffer, whole packets.
	for at := 0; at < len(got); {
		n, err := h.Read(got[at:min(len(got), at+[]int{4, 4096, 35000}[at%3])])
		if err != nil {
			t.Fatalf("after %d bytes: %v", at, err)
		}
		at += n
	}
	if !bytes.Equal(got, data) {
		t.Fatal("the bytes read differ from the bytes written")
	}
	if first := h.first(); !bytes.Equal(first, data[:heardMax]) {
		t.Fatalf("first bytes heard: %d, not the %d the server sent first", len(first), heardMax)
	}
	if _, err := io.ReadFull(h, make([]byte, 1)); err != io.EOF {
		t.Fatalf("after the end: %v, want EOF", err)
	}
}
