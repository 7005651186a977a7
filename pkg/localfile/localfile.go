// Package localfile holds the rules dvv and dvvd follow for the files they
// write on the local machine, where another local user may have planted a
// name first (in a shared place such as /tmp).
package localfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// OwnDir makes dir (0700) if it is missing and refuses it unless it is this
// user's own: a directory, or a symlink, another user made would have the
// files written where that user chose, or into a directory they control.
func OwnDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %v", dir, err)
	}
	me := os.Geteuid()
	for _, stat := range []func(string) (os.FileInfo, error){os.Lstat, os.Stat} {
		fi, err := stat(dir)
		if err != nil {
			return err
		}
		if uid, ok := Owner(fi); ok && uid != me {
			what := "directory"
			if fi.Mode()&os.ModeSymlink != 0 {
				what = "symlink"
			}
			return fmt.Errorf("%s is a %s another user (uid %d) owns; nothing was written: choose a directory of your own (e.g. under your home)", dir, what, uid)
		}
	}
	return nil
}

// CreateBeside creates a new file in path's directory under a random name
// nobody held before (O_EXCL), with permission bits perm less the umask,
// for a caller that fills it and then renames it over path: a symlink or
// another user's file already at path is replaced, never written through
// or into. The name starts with ".dvv-".
func CreateBeside(path string, perm fs.FileMode) (*os.File, error) {
	dir := filepath.Dir(path)
	for range 100 {
		var b [6]byte
		rand.Read(b[:])
		f, err := os.OpenFile(filepath.Join(dir, ".dvv-"+hex.EncodeToString(b[:])), os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm&0o777)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("no free temporary name in %s", dir)
}

// OpenDevice opens path for writing when it is a character device
// (/dev/null, a terminal), which is written into: only root makes one, so
// nobody planted it, and renaming a new file over it (which root may)
// would leave a regular file there for every other program. ok is false
// when path is anything else or missing (the caller writes beside it and
// renames); a block device, named pipe or socket is an error: a pipe
// another user made would hand them the bytes.
func OpenDevice(path string) (f *os.File, ok bool, err error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, false, nil
	}
	switch m := fi.Mode(); {
	case m&fs.ModeCharDevice != 0:
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		return f, err == nil, err
	case m&(fs.ModeDevice|fs.ModeNamedPipe|fs.ModeSocket) != 0:
		return nil, false, fmt.Errorf("%s is a block device, pipe or socket, not a file: name a regular file (or a new one)", path)
	}
	return nil, false, nil
}
