package system_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestTransferStatusAndCancel: a files put fed from a FIFO the test
// writes is in flight for as long as the test wants; `dvv transfer status`
// shows it with its bytes, `dvv transfer cancel` stops it, and the put
// answers that it stopped, leaving no file on the SFTP server.
func TestTransferStatusAndCancel(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	d := startDaemonIn(t, "", s.Home)
	limb := openSSH(t, d, s)

	fifo := filepath.Join(t.TempDir(), "slow")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := os.OpenFile(fifo, os.O_RDWR, 0) // RDWR: opening does not wait for a reader
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	chunk := make([]byte, 32<<10)             // fits the pipe's buffer: no reader needed yet
	if _, err := w.Write(chunk); err != nil { // what the pipe holds before dvvd reads
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, d.socket, client.Options{Name: "putter"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	remote := filepath.Join(s.RemoteHome, "slow.bin")
	putDone := make(chan error, 1)
	go func() {
		_, err := c.Files(ctx, wire.FilesArgs{Target: wire.Target{LimbID: limb}, Action: "put", Path: remote, From: fifo})
		putDone <- err
	}()

	var info *wire.TransferInfo
	testbed.Eventually(t, 20*time.Second, "the put to show in transfer status", func() bool {
		r := d.dvv("transfer", "status", limb, "--json")
		resp := response(t, r)
		if resp.Transfer != nil && len(resp.Transfer.Transfers) == 1 && resp.Transfer.Transfers[0].Bytes > 0 {
			info = &resp.Transfer.Transfers[0]
			return true
		}
		return false
	})
	if info.Action != "put" || info.Path != remote || resp0(t, d, limb).InFlight != 1 {
		t.Errorf("transfer status: %+v", info)
	}
	if r := d.must("transfer", "status", limb); !strings.Contains(r.stdout, info.TransferID) || !strings.Contains(r.stdout, "put") {
		t.Errorf("transfer status table: %v", r)
	}

	d.must("transfer", "cancel", limb, "--id", info.TransferID)
	select {
	case err := <-putDone:
		if err == nil || !strings.Contains(err.Error(), "gave up") {
			t.Errorf("the cancelled put answered %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the put did not stop")
	}
	if r := d.must("transfer", "status", limb); !strings.Contains(r.stdout, "no transfer") {
		t.Errorf("after cancel: %v", r)
	}
	wantExit(t, d.dvv("transfer", "cancel", limb, "--id", info.TransferID), wire.ExitGone, wire.NotFound)
}

func resp0(t *testing.T, d *daemon, limb string) *wire.Transfer {
	t.Helper()
	return response(t, d.dvv("transfer", "status", limb, "--json")).Transfer
}
