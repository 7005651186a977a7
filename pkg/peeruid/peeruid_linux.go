// Package peeruid names the local user at the far end of a loopback TCP
// connection, so that listeners every local user can reach (the viewer,
// a share's port) can keep one user's flood or guesses from locking out
// another.
package peeruid

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// Loopback is the uid owning the far end of a TCP connection
// accepted on 127.0.0.1 or ::1. Both ends of a loopback connection are
// sockets of this machine, so the kernel lists the peer's socket in
// /proc/net/tcp{,6} with its owner, as identd reads it. false when the
// peer is not found (it already closed, or another network namespace).
func Loopback(c net.Conn) (int, bool) {
	local, lok := c.LocalAddr().(*net.TCPAddr)
	remote, rok := c.RemoteAddr().(*net.TCPAddr)
	if !lok || !rok || !remote.IP.IsLoopback() {
		return 0, false
	}
	// The peer's socket has our remote address as its local one.
	want := [2]string{procNetAddr(remote.AddrPort()), procNetAddr(local.AddrPort())}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		if uid, ok := findSocketOwner(table, want); ok {
			return uid, true
		}
	}
	return 0, false
}

// procNetAddr writes an address as /proc/net/tcp does: the IP's 32-bit
// words each in host (little-endian) order, in hex, then ":" and the port.
// An IPv4 peer of an IPv6 socket is listed in tcp6 as ::ffff:a.b.c.d, and
// in tcp as a.b.c.d; the caller looks in both.
func procNetAddr(ap netip.AddrPort) string {
	ip := ap.Addr().Unmap()
	var raw []byte
	if ip.Is4() {
		b := ip.As4()
		raw = b[:]
	} else {
		b := ip.As16()
		raw = b[:]
	}
	var sb strings.Builder
	for i := 0; i < len(raw); i += 4 {
		var w [4]byte
		binary.LittleEndian.PutUint32(w[:], binary.BigEndian.Uint32(raw[i:]))
		sb.WriteString(strings.ToUpper(hex.EncodeToString(w[:])))
	}
	return fmt.Sprintf("%s:%04X", sb.String(), ap.Port())
}

func findSocketOwner(table string, want [2]string) (int, bool) {
	f, err := os.Open(table)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// sl local rem st queues tr:when retrnsmt uid ...
		fields := strings.Fields(sc.Text())
		if len(fields) < 8 {
			continue
		}
		local, rem := fields[1], fields[2]
		if strings.HasSuffix(table, "6") && len(want[0]) < 32 {
			// an IPv4 peer as tcp6 lists it: ::ffff:a.b.c.d
			local, rem = unmap6(local), unmap6(rem)
		}
		if local == want[0] && rem == want[1] {
			uid, err := strconv.Atoi(fields[7])
			return uid, err == nil
		}
	}
	return 0, false
}

// unmap6 turns tcp6's form of ::ffff:a.b.c.d into tcp's form of a.b.c.d.
func unmap6(s string) string {
	const mapped = "0000000000000000FFFF0000"
	if len(s) == 32+5 && strings.HasPrefix(s, mapped) {
		return s[len(mapped):]
	}
	return s
}
