// Package sock holds the rules of dvvd's Unix sockets that the daemon and
// its clients must apply alike: where the sockets live, who may own their
// directory, and how the peer at the other end is identified. It imports
// nothing of dvv, so the daemon need not import the client to share them.
package sock

import (
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Dir is the directory holding this user's dvvd sockets. dvvd and
// every client resolve it the same way, from the same environment:
// $XDG_RUNTIME_DIR/dvv when $XDG_RUNTIME_DIR names an existing directory
// (it is per user and not shared with others), else /tmp/dvv<uid>.
func Dir() string {
	if x := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(x) {
		if fi, err := os.Stat(x); err == nil && fi.IsDir() {
			return filepath.Join(x, "dvv")
		}
	}
	return fmt.Sprintf("/tmp/dvv%d", os.Getuid())
}

// Path is the socket of instance id ("" = "default") for this user.
func Path(id string) string {
	if id == "" {
		id = "default"
	}
	return filepath.Join(Dir(), id+".sock")
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

// ProcessStart is a process's start time in clock ticks since boot (Linux
// /proc), "" where unknown. With the pid it names a peer process (a
// client's shell) so that a later process reusing the pid is not taken
// for it.
func ProcessStart(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return ""
	}
	return f[19]
}
