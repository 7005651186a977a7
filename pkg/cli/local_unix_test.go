//go:build unix

package cli

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/dvvhq/dvv/pkg/wire"
)

// A pipe (or device: /dev/null) named as where dvv writes an image or a
// fetched file is refused, not replaced by the new file's rename: as
// root, `dvv screen --out /dev/null` would otherwise leave a regular file
// at /dev/null for every program on the machine.
func TestLocalWriteLeavesAPipeAPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	answer := func(r *sentReq) (wire.Answer, error) {
		if r.Op == wire.OpScreen {
			return &wire.ScreenAnswer{Screen: &wire.Screen{Mime: "image/png", DataBase64: base64.StdEncoding.EncodeToString([]byte("\x89PNG"))}}, nil
		}
		return &wire.FilesAnswer{Files: &wire.FilesResult{Bytes: 2, ContentBase64: base64.StdEncoding.EncodeToString([]byte("hi"))}}, nil
	}
	for _, args := range [][]string{
		{"screen", "vnc-1", "--out", fifo},
		{"files", "get", "ssh-1", "~/a.txt", fifo},
	} {
		_, code, _, errs := answered(t, "", answer, args...)
		fi, err := os.Lstat(fifo)
		if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("dvv %s: the pipe is now %v (%v)", strings.Join(args, " "), fi.Mode(), err)
		}
		if code != wire.BadRequest.Info().Exit || !strings.Contains(errs, "named pipe") || !strings.Contains(errs, "next: name a regular file") {
			t.Fatalf("dvv %s: exit %d, stderr %q", strings.Join(args, " "), code, errs)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".dvv-*")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}
