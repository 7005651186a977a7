// Package configfile holds the rules every file dvv keeps in the user's
// configuration directory follows: the directory is 0700, files are 0600,
// writes are atomic (temp file + rename), and read-modify-write cycles take
// an advisory lock so two dvvd instances sharing the file do not lose each
// other's changes.
package configfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// MaxSize bounds what is read from a configuration file; dvv's own files are
// far smaller, and a larger one is refused rather than read into memory.
const MaxSize = 8 << 20

// Dir is dvv's configuration directory: $XDG_CONFIG_HOME/dvv, or
// ~/.config/dvv when XDG_CONFIG_HOME is unset or not absolute.
func Dir() string {
	if x := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "dvv")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		home = "/"
	}
	return filepath.Join(home, ".config", "dvv")
}

// Read returns the file's bytes, or nil and no error when it does not exist.
// A file open to group or others is tightened to 0600.
func Read(path string) ([]byte, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file; move it away", path)
	}
	if st.Size() > MaxSize {
		return nil, fmt.Errorf("%s is %d bytes, over the %d-byte limit; it is not a file dvv wrote", path, st.Size(), MaxSize)
	}
	if st.Mode().Perm()&0o077 != 0 {
		_ = f.Chmod(0o600)
	}
	buf, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, err
	}
	if len(buf) > MaxSize {
		return nil, fmt.Errorf("%s grew over the %d-byte limit while being read", path, MaxSize)
	}
	return buf, nil
}

// WriteAtomic replaces path with data: a 0600 temp file in the same
// directory, synced, then renamed over path. Readers see the old file or the
// new one, never a part.
func WriteAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := EnsureDir(dir); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		return err
	}
	ok = true
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// EnsureDir creates dir with mode 0700 (and its parents with 0700) when it
// is missing. An existing directory keeps its mode: it may be shared.
func EnsureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create configuration directory: %w", err)
	}
	return nil
}

// Lock takes an exclusive advisory lock on path+".lock" (created 0600) and
// returns its release. It serializes read-modify-write cycles between
// processes; callers still need their own mutex between goroutines.
func Lock(path string) (release func(), err error) {
	if err := EnsureDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
