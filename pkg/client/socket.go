package client

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/dvvhq/dvv/pkg/wire"
)

// SocketDir is the directory holding this user's dvvd sockets. dvvd and
// every client resolve it the same way, from the same environment:
// $XDG_RUNTIME_DIR/dvv when $XDG_RUNTIME_DIR names an existing directory
// (it is per user and not shared with others), else /tmp/dvv<uid>.
func SocketDir() string {
	if x := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(x) {
		if fi, err := os.Stat(x); err == nil && fi.IsDir() {
			return filepath.Join(x, "dvv")
		}
	}
	return fmt.Sprintf("/tmp/dvv%d", os.Getuid())
}

// SocketPath is the socket of instance id ("" = "default") for this user.
func SocketPath(id string) string {
	if id == "" {
		id = "default"
	}
	return filepath.Join(SocketDir(), id+".sock")
}

// DefaultSocket is $DVV_SOCKET, else the default instance's socket.
func DefaultSocket() string {
	if p := os.Getenv("DVV_SOCKET"); p != "" {
		return p
	}
	return SocketPath("")
}

// Owner names a uid for messages: "uid 65534 (nobody)".
func Owner(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return fmt.Sprintf("uid %d (%s)", uid, u.Username)
	}
	return fmt.Sprintf("uid %d", uid)
}

// CheckDir reports why dir cannot hold this user's socket: it must be a
// real directory (not a symlink), owned by this user, with no group or
// other permission bits. Another local user who made it first could
// otherwise put their own socket there and read what is sent to it.
func CheckDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symlink, not a directory of your own; remove it and start dvvd again", dir)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory; remove it and start dvvd again", dir)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("cannot read the owner of %s", dir)
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s is owned by %s, not by you (%s): another user may be listening there; have it removed (as root or that user), or set XDG_RUNTIME_DIR to a private directory", dir, Owner(int(st.Uid)), Owner(os.Getuid()))
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s has mode %04o; it must be 0700, giving nothing to group or others (chmod 700 %s, then restart dvvd)", dir, fi.Mode().Perm(), dir)
	}
	return nil
}

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
