//go:build unix

package cli

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// A named pipe at the path dvv writes an image or a fetched file to is
// refused, not replaced by the new file's rename (nor written into: a pipe
// another user made would hand them the bytes).
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

// A character device (/dev/null) at the path is written into, not
// replaced: as root, `dvv screen --out /dev/null` renamed a regular file
// over /dev/null for every program on the machine. The device here is a
// private null device, so the test itself cannot break /dev/null.
func TestLocalWriteLeavesADeviceADevice(t *testing.T) {
	testbed.NeedRoot(t, "making a device node")
	dev := filepath.Join(t.TempDir(), "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
		t.Fatal(err)
	}
	answer := func(r *sentReq) (wire.Answer, error) {
		return &wire.ScreenAnswer{Screen: &wire.Screen{Mime: "image/png", DataBase64: base64.StdEncoding.EncodeToString([]byte("\x89PNG")), ImageSpaceLine: "imageSpace: …"}}, nil
	}
	_, code, _, errs := answered(t, "", answer, "screen", "vnc-1", "--out", dev)
	fi, err := os.Lstat(dev)
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("the device is now %v (%v)", fi.Mode(), err)
	}
	if code != 0 {
		t.Fatalf("screen --out a device: exit %d, stderr %q", code, errs)
	}
}
