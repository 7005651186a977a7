//go:build unix

package localfile

import (
	"os"
	"syscall"
)

// Owner is the uid that owns a file (false where the system does not say).
func Owner(fi os.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
