// Package peeruid names the local user at the far end of a loopback TCP
// connection, so that listeners every local user can reach (the viewer,
// a share's port) can keep one user's flood or guesses from locking out
// another.
package peeruid

import (
	"encoding/binary"
	"net"
	"net/netip"
	"syscall"
)

// Loopback is the uid owning the far end of a TCP connection accepted on
// 127.0.0.1 or ::1. Both ends of a loopback connection are sockets of
// this machine, so the kernel's socket diagnostics (sock_diag, what `ss`
// uses) answer for the peer's socket by its exact addresses: one lookup,
// not a walk of every socket (a flood makes that table long). false when
// the peer is not found (it already closed, or another network namespace).
func Loopback(c net.Conn) (int, bool) {
	local, lok := c.LocalAddr().(*net.TCPAddr)
	remote, rok := c.RemoteAddr().(*net.TCPAddr)
	if !lok || !rok || !remote.IP.IsLoopback() {
		return 0, false
	}
	// The peer's socket has our remote address as its source.
	src, dst := remote.AddrPort(), local.AddrPort()
	if src.Addr().Unmap().Is4() {
		if uid, ok := diag(syscall.AF_INET, unmapped(src), unmapped(dst)); ok {
			return uid, true
		}
	}
	return diag(syscall.AF_INET6, mapped(src), mapped(dst))
}

func unmapped(ap netip.AddrPort) netip.AddrPort {
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
}

func mapped(ap netip.AddrPort) netip.AddrPort {
	return netip.AddrPortFrom(netip.AddrFrom16(ap.Addr().As16()), ap.Port())
}

const (
	sockDiagByFamily = 20 // SOCK_DIAG_BY_FAMILY
	netlinkInetDiag  = 4  // NETLINK_INET_DIAG (NETLINK_SOCK_DIAG)
	uidOffset        = 4 + 48 + 12
)

// diag asks sock_diag for the TCP socket src->dst of family and reads its
// owner from the answer (struct inet_diag_msg).
func diag(family int, src, dst netip.AddrPort) (int, bool) {
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, netlinkInetDiag)
	if err != nil {
		return 0, false
	}
	defer syscall.Close(fd)
	tv := syscall.Timeval{Sec: 1}
	syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
	req := make([]byte, 16+56)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], uint32(len(req)))
	ne.PutUint16(req[4:], sockDiagByFamily)
	ne.PutUint16(req[6:], syscall.NLM_F_REQUEST)
	ne.PutUint32(req[8:], 1)
	r := req[16:]
	r[0], r[1] = byte(family), syscall.IPPROTO_TCP
	ne.PutUint32(r[4:], 0xffffffff) // every state
	id := r[8:]                     // struct inet_diag_sockid
	binary.BigEndian.PutUint16(id[0:], src.Port())
	binary.BigEndian.PutUint16(id[2:], dst.Port())
	putAddr(id[4:20], src.Addr())
	putAddr(id[20:36], dst.Addr())
	ne.PutUint32(id[40:], 0xffffffff) // no cookie: look up by address
	ne.PutUint32(id[44:], 0xffffffff)
	if err := syscall.Sendto(fd, req, 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return 0, false
	}
	buf := make([]byte, 4096)
	n, _, err := syscall.Recvfrom(fd, buf, 0)
	if err != nil || n < 16+uidOffset+4 || ne.Uint16(buf[4:]) != sockDiagByFamily {
		return 0, false
	}
	return int(ne.Uint32(buf[16+uidOffset:])), true
}

func putAddr(b []byte, a netip.Addr) {
	if a.Is4() {
		v := a.As4()
		copy(b, v[:])
		return
	}
	v := a.As16()
	copy(b, v[:])
}
