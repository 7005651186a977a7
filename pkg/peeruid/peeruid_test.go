package peeruid

import (
	"net"
	"os"
	"testing"
)

// A connection this process makes to itself over loopback is found as its
// own uid's, for IPv4 and IPv6.
func TestLoopbackPeerUIDFindsTheConnectingUser(t *testing.T) {
	for _, network := range []string{"tcp4", "tcp6"} {
		addr := "127.0.0.1:0"
		if network == "tcp6" {
			addr = "[::1]:0"
		}
		ln, err := net.Listen(network, addr)
		if err != nil {
			t.Logf("%s: %v (skipped)", network, err)
			continue
		}
		defer ln.Close()
		c, err := net.Dial(network, ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		s, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		uid, ok := Loopback(s)
		if !ok || uid != os.Getuid() {
			t.Fatalf("%s: peer uid %d, %v; want %d", network, uid, ok, os.Getuid())
		}
	}
}
