package daemon

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/dvvhq/dvv/pkg/sock"
)

// prepareDir makes sure dir is a private directory of this user: created
// 0700 when missing; refused when it is a symlink, owned by someone else
// (the message names them), or open to group or others. A socket in a
// shared directory could be replaced by another user's. Clients apply the
// same rules (sock.CheckDir) before they send anything.
func prepareDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := sock.CheckDir(dir); err != nil {
		return fmt.Errorf("refusing the socket directory: %w", err)
	}
	return nil
}

// listen creates the socket at path: refuses when a live dvvd answers there,
// removes a stale file otherwise, and leaves the socket at mode 0600.
func listen(path string) (*net.UnixListener, error) {
	if len(path) > maxSocketPath {
		return nil, errSocketPathTooLong(path)
	}
	if err := prepareDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	// Dialling first tells a live dvvd (refuse) from a stale file left by
	// one that died (remove): removing a live one's socket would orphan it.
	if c, err := net.DialTimeout("unix", path, 500*time.Millisecond); err == nil {
		c.Close()
		return nil, fmt.Errorf("a dvvd is already running on %s (stop it, or start this one with another --id)", path)
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("%s exists and is not a socket; refusing to remove it", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("remove stale socket %s: %w", path, err)
		}
	}
	// The umask makes the socket 0600 from its creation: a chmod after
	// the fact would leave a moment in which another user could connect.
	// (The directory's 0700 already keeps them out; this is the second
	// wall.) Umask is process-wide, which is fine at start-up.
	old := syscall.Umask(0o177)
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	syscall.Umask(old)
	if err != nil {
		return nil, err
	}
	l.SetUnlinkOnClose(true) // a clean stop leaves no stale socket behind
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// acceptRetry decides what a listener's accept loop does after an error:
// stop (false) only when the listener was closed; any other error (out of
// file descriptors under a connection flood, a peer that left before its
// accept) is waited out with a growing pause, as net/http does, so no
// peer can stop dvvd or one of its listeners by exhausting a resource.
// delay carries the pause between calls; a successful accept resets it.
func acceptRetry(err error, delay *time.Duration, done <-chan struct{}, log func(msg string, args ...any)) bool {
	if errors.Is(err, net.ErrClosed) {
		return false
	}
	select {
	case <-done:
		return false
	default:
	}
	if *delay == 0 {
		*delay = 5 * time.Millisecond
	} else {
		*delay = min(*delay*2, time.Second)
	}
	if *delay == time.Second || *delay == 5*time.Millisecond {
		log("accept failed; retrying", "err", err, "pause", *delay)
	}
	select {
	case <-done:
		return false
	case <-time.After(*delay):
	}
	return true
}

// maxSocketPath is the longest path a Unix socket can be bound at: the
// kernel's sun_path holds 108 bytes on Linux (104 on macOS and the BSDs),
// one of them the terminating NUL. Past it, bind fails with a bare EINVAL.
var maxSocketPath = map[bool]int{true: 107, false: 103}[runtime.GOOS == "linux"]

func errSocketPathTooLong(path string) error {
	return fmt.Errorf("the socket path %s is %d bytes, longer than the %d a Unix socket allows; "+
		"use a shorter XDG_RUNTIME_DIR (or --socket with a shorter path)", path, len(path), maxSocketPath)
}
