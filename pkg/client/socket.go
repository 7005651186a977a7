package client

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/dvvhq/dvv/pkg/sock"
	"github.com/dvvhq/dvv/pkg/wire"
)

// The socket rules live in pkg/sock, which dvvd uses too; these names
// keep the client's callers unchanged.

// SocketDir is sock.Dir: this user's dvvd socket directory.
func SocketDir() string { return sock.Dir() }

// SocketPath is sock.Path: the socket of instance id ("" = "default").
func SocketPath(id string) string { return sock.Path(id) }

// DefaultSocket is $DVV_SOCKET, else the default instance's socket.
func DefaultSocket() string {
	if p := os.Getenv("DVV_SOCKET"); p != "" {
		return p
	}
	return SocketPath("")
}

// Owner is sock.Owner: a uid for messages.
func Owner(uid int) string { return sock.Owner(uid) }

// CheckDir is sock.CheckDir: why dir cannot hold this user's socket.
func CheckDir(dir string) error { return sock.CheckDir(dir) }

// PeerUID is sock.PeerUID: the uid at the other end of a Unix socket.
func PeerUID(c *net.UnixConn) (int, error) { return sock.PeerUID(c) }

// checkSocket applies the socket rules before a byte is sent: the
// directory passes CheckDir and the socket file is this user's. A missing
// socket is no dvvd at all (DAEMON_UNAVAILABLE); anything else is
// SOCKET_UNSAFE.
func checkSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return unavailable(path, err)
	}
	if err := CheckDir(filepath.Dir(path)); err != nil {
		return unsafeSocket(err.Error())
	}
	if err != nil {
		return unsafeSocket(err.Error())
	}
	if fi.Mode()&fs.ModeSocket == 0 {
		return unsafeSocket(fmt.Sprintf("%s is not a socket", path))
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
		uid := -1
		if ok {
			uid = int(st.Uid)
		}
		return unsafeSocket(fmt.Sprintf("the socket %s is owned by %s, not by you", path, Owner(uid)))
	}
	return nil
}

func unavailable(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &wire.Error{Code: wire.DaemonUnavailable,
		Message: fmt.Sprintf("no dvvd answers on %s (%v)", path, err),
		Next:    "start it with `dvvd &` (or `systemctl --user start dvvd`), or point --socket/DVV_SOCKET at a running one"}
}

func unsafeSocket(msg string) error {
	return &wire.Error{Code: wire.SocketUnsafe, Message: msg + "; nothing was sent",
		Next: wire.SocketUnsafe.Info().Next}
}

// TokenFromEnv reads DVV_TOKEN through lookup (os.LookupEnv). Unset is the
// socket owner's own access; set but empty (as `$(cat missing-file)`
// gives) is an error, never taken as "no token".
func TokenFromEnv(lookup func(string) (string, bool)) (string, error) {
	tok, set := lookup("DVV_TOKEN")
	if set && strings.TrimSpace(tok) == "" {
		return "", &wire.Error{Code: wire.PolicyDenied,
			Message: "DVV_TOKEN is set but empty (was it read from a missing file?); nothing was sent",
			Next:    "set DVV_TOKEN to a token from `dvv token create`, or unset it (`unset DVV_TOKEN`) to act with your own access"}
	}
	return tok, nil
}
