// Package localfile holds the rules dvv and dvvd follow for the files they
// write on the local machine, where another local user may have planted a
// name first (in a shared place such as /tmp).
package localfile

import (
	"fmt"
	"os"
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
