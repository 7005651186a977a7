package machine

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"

	"github.com/dvvhq/dvv/pkg/localfile"
	"github.com/dvvhq/dvv/pkg/sock"
	"github.com/dvvhq/dvv/pkg/wire"
)

// A local QMP socket is trusted as ssh trusts its files: whoever answers
// on it decides what dvvd reads as the machine's state and screen, so it
// must be this user's or root's. A socket another user owns, or one in a
// directory another user owns or may write into without the sticky bit
// (where they could put their own socket in its place), is refused before
// dialling; and since the name could still be swapped between the check
// and the dial, the process that accepted the connection is checked too
// (its uid, SO_PEERCRED).

// trustedUID is whether uid may serve this user's machine.
func trustedUID(uid int) bool { return uid == os.Geteuid() || uid == 0 }

// checkSocketOwner refuses a QMP socket path another user could have
// planted. A missing socket is left to the dial (QEMU has ended).
func checkSocketOwner(s Spec) error {
	paths := []string{s.Path}
	if r, err := filepath.EvalSymlinks(s.Path); err == nil && r != s.Path {
		paths = append(paths, r)
	} else if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if uid, ok := localfile.Owner(fi); ok && !trustedUID(uid) {
			return untrustedSocket(s, fmt.Sprintf("%s is owned by another user (uid %d)", p, uid))
		}
		for dir := filepath.Dir(p); ; dir = filepath.Dir(dir) {
			fi, err := os.Stat(dir)
			if err != nil {
				return unreachable(s, err)
			}
			uid, ok := localfile.Owner(fi)
			switch {
			case ok && !trustedUID(uid):
				return untrustedSocket(s, fmt.Sprintf("its directory %s is owned by another user (uid %d)", dir, uid))
			case fi.Mode().Perm()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0:
				return untrustedSocket(s, fmt.Sprintf("its directory %s may be written by other users (mode %04o, no sticky bit)", dir, fi.Mode().Perm()))
			}
			if dir == filepath.Dir(dir) {
				break
			}
		}
	}
	return nil
}

// checkPeer refuses a connection another user's process accepted.
func checkPeer(s Spec, c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil
	}
	uid, err := sock.PeerUID(uc)
	if err != nil {
		return untrustedSocket(s, "the process listening on it cannot be identified ("+err.Error()+")")
	}
	if !trustedUID(uid) {
		return untrustedSocket(s, fmt.Sprintf("the process listening on it runs as another user (uid %d)", uid))
	}
	return nil
}

func untrustedSocket(s Spec, why string) error {
	return &wire.Error{Code: wire.PolicyDenied, Message: fmt.Sprintf("machine %s: the QMP socket is not trusted: %s; whoever owns it could show dvv a machine of their choosing", s, why),
		Next: "Run QEMU as yourself with its -qmp socket in a directory only you can write (e.g. under $XDG_RUNTIME_DIR), or reach a QEMU another account runs through libvirt (libvirt:NAME)."}
}
