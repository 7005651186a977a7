//go:build bench

package bench

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestFilesProgressCost measures what progress lines cost a transfer: files
// get and put of 64 MiB through dvvd over a real sshd, with and without
// progress, beside OpenSSH's `sftp -b` on the same server, interleaved so
// machine load falls on all three alike; the order rotates each round.
// Median of 9 rounds.
func TestFilesProgressCost(t *testing.T) {
	testbed.Need(t, "sftp")
	s := testbed.StartSSHD(t)
	id := fmt.Sprintf("bench-%d-%d", os.Getpid(), time.Now().UnixNano()%1e6)
	cmd := exec.Command(filepath.Join(binDir, "dvvd"), "--id", id, "--no-discovery", "--log-level", "warn")
	cmd.Env = append(os.Environ(), "HOME="+s.Home, "XDG_CONFIG_HOME="+s.Home+"/.config") // its ~/.ssh logs in to sshd
	testbed.Start(t, "dvvd", cmd)
	sock := client.SocketPath(id)
	testbed.WaitFile(t, sock, 10*time.Second)
	d := &dvvd{socket: sock}
	c := d.dial(t)
	port := s.Port
	limb := must(t, c, wire.OpenArgs{Address: "127.0.0.1", Port: &port, Protocol: "ssh"}).LimbID
	to := 20000
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: limb}, Until: "connected", TimeoutMs: &to})

	const size = 64 << 20
	dir := t.TempDir()
	src := filepath.Join(dir, "src.bin")
	data := make([]byte, size)
	rand.Read(data)
	if err := os.WriteFile(src, data, 0o600); err != nil {
		t.Fatal(err)
	}
	remote := filepath.Join(s.RemoteHome, "bench.bin")
	if err := os.WriteFile(remote, data, 0o600); err != nil {
		t.Fatal(err)
	}
	sftp := func(line string) {
		batch := filepath.Join(dir, "batch")
		os.WriteFile(batch, []byte(line+"\n"), 0o600)
		args := []string{"-q", "-b", batch, "-F", "none", "-P", strconv.Itoa(s.Port), "-i", s.ClientKey,
			"-o", "UserKnownHostsFile=" + filepath.Join(s.Home, ".ssh", "known_hosts"),
			"-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes", s.User + "@" + s.Host}
		if out, err := exec.Command("sftp", args...).CombinedOutput(); err != nil {
			t.Fatalf("sftp: %v %s", err, out)
		}
	}
	lines := 0
	files := func(progress bool, a wire.FilesArgs) {
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		defer cancel()
		var r *wire.FilesAnswer
		var err error
		if progress {
			var line *wire.Reply
			if line, err = c.DoProgress(ctx, a, func(wire.TransferInfo) { lines++ }); err == nil {
				r, err = wire.DecodeAnswer[wire.FilesAnswer](line)
			}
		} else {
			r, err = c.Files(ctx, a)
		}
		if err != nil || r.Files.Bytes != size {
			t.Fatalf("%s: %v", a.Action, err)
		}
	}
	get := func(progress bool) func() {
		return func() {
			files(progress, wire.FilesArgs{Target: wire.Target{LimbID: limb}, Action: "get", Path: remote, To: filepath.Join(dir, "got.bin")})
		}
	}
	put := func(progress bool) func() {
		return func() {
			files(progress, wire.FilesArgs{Target: wire.Target{LimbID: limb}, Action: "put", From: src, Path: filepath.Join(s.RemoteHome, "put.bin")})
		}
	}
	routes := []struct {
		name     string
		get, put func()
	}{
		{"dvvd, no progress", get(false), put(false)},
		{"dvvd, progress lines", get(true), put(true)},
		{"OpenSSH `sftp -b`", func() { sftp(fmt.Sprintf("get %s %s/sftp-got.bin", remote, dir)) },
			func() { sftp(fmt.Sprintf("put %s %s/sftp-put.bin", src, s.RemoteHome)) }},
	}
	const rounds = 3 // × 3 rotations: 9 samples each
	gets := make([]durations, len(routes))
	puts := make([]durations, len(routes))
	for i := 0; i < rounds*len(routes); i++ {
		for k := range routes {
			j := (i + k) % len(routes) // each route goes first as often as the others
			r := routes[j]
			t0 := time.Now()
			r.get()
			gets[j] = append(gets[j], time.Since(t0))
			t0 = time.Now()
			r.put()
			puts[j] = append(puts[j], time.Since(t0))
		}
	}
	mibs := func(d time.Duration) float64 { return size / float64(1<<20) / d.Seconds() }
	fmt.Printf("\n| route | get (MiB/s, p50) | put (MiB/s, p50) |\n| --- | --- | --- |\n")
	for j, r := range routes {
		fmt.Printf("| %s | %.0f | %.0f |\n", r.name, mibs(gets[j].pct(0.5)), mibs(puts[j].pct(0.5)))
	}
	fmt.Printf("\nprogress/no-progress time: get %.2f, put %.2f; %d progress lines over %d transfers\n",
		gets[1].pct(0.5).Seconds()/gets[0].pct(0.5).Seconds(), puts[1].pct(0.5).Seconds()/puts[0].pct(0.5).Seconds(),
		lines, 2*rounds*len(routes))
}
