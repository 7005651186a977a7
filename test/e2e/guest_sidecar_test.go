package e2e

import (
	"bytes"
	"encoding/base64"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/daemon"
	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestSidecarGuestChannel: a VNC limb's files sidecar learns the
// machine's facts when it connects (status carries them, via sidecar, as
// uname and id say them on the server), and stats, reads ranges and
// appends through it exactly (the file on the server's disk).
func TestSidecarGuestChannel(t *testing.T) {
	s := testbed.StartSSHD(t)
	t.Setenv("HOME", s.Home)
	t.Setenv("SSH_AUTH_SOCK", "")
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 240})
	hs, err := hosts.Open(filepath.Join(t.TempDir(), "hosts.json"))
	if err != nil {
		t.Fatal(err)
	}
	d := startDaemonWith(t, daemon.Services{Hosts: hs}, nopWriter{})
	c := dial(t, d, "agent")
	must(t, c, wire.HostAddArgs{Host: wire.HostSpec{Name: "desk", Protocol: "vnc", Address: "127.0.0.1", Port: v.Port, SSHPort: s.Port, SSHUser: s.User}})
	id := must(t, c, wire.OpenArgs{HostID: "desk"}).LimbID
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "connected", TimeoutMs: intp(20000)})
	on := wire.Target{LimbID: id}
	if g := must(t, c, wire.StatusArgs{Target: on}).Observation.Guest; g != nil {
		t.Fatalf("facts before any channel into the machine connected: %+v", g)
	}

	file := filepath.Join(s.RemoteHome, "side.bin")
	data := []byte("0123456789abcdefghij")
	if err := os.WriteFile(file, data, 0o640); err != nil {
		t.Fatal(err)
	}
	st := must(t, c, wire.FilesArgs{Target: on, Action: "stat", Path: file}).Files
	if st.Via != "sidecar" || st.Stat == nil || st.Stat.Size != int64(len(data)) || st.Stat.Mode != "0640" || st.Stat.Kind != "file" {
		t.Fatalf("stat through the sidecar: %+v %+v", st, st.Stat)
	}
	off, n := int64(5), int64(7)
	got := must(t, c, wire.FilesArgs{Target: on, Action: "get", Path: file, Offset: &off, Length: &n}).Files
	if b, _ := base64.StdEncoding.DecodeString(got.ContentBase64); string(b) != "56789ab" || got.Offset != 5 || got.Bytes != 7 {
		t.Fatalf("a range through the sidecar: %q %+v", b, got)
	}
	more := base64.StdEncoding.EncodeToString([]byte("+tail"))
	must(t, c, wire.FilesArgs{Target: on, Action: "put", Path: file, ContentBase64: more, Append: true})
	if b, _ := os.ReadFile(file); !bytes.Equal(b, append(data, "+tail"...)) {
		t.Fatalf("an append through the sidecar left %q on disk", b)
	}

	// Commands go over the same sidecar, with their input.
	ran := filepath.Join(s.RemoteHome, "ran-on-desktop")
	run := must(t, c, wire.RunArgs{Target: on, Command: "cat > " + ran + "; echo done", TimeoutMs: 10000,
		StdinBase64: base64.StdEncoding.EncodeToString([]byte("through the sidecar"))}).Run
	if run == nil || run.Stdout != "done\n" || run.Via != "sidecar" {
		t.Fatalf("run on a desktop limb: %+v", run)
	}
	if b, _ := os.ReadFile(ran); string(b) != "through the sidecar" {
		t.Fatalf("the file the desktop's command wrote: %q", b)
	}

	say := func(args ...string) string {
		out, err := exec.Command(args[0], args[1:]...).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	want := wire.GuestFacts{OS: strings.ToLower(say("uname", "-s")), Arch: say("uname", "-m"), Hostname: say("uname", "-n"),
		Kernel: say("uname", "-r"), User: say("id", "-un"), Via: "sidecar"}
	if g := must(t, c, wire.StatusArgs{Target: on}).Observation.Guest; g == nil || *g != want {
		t.Fatalf("status's facts once the sidecar connected: %+v, want %+v", g, want)
	}

	// A desktop whose machine has no SSH server: its command channel is not
	// connected, and the cause and remedy are the sidecar's.
	v2 := testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 240})
	must(t, c, wire.HostAddArgs{Host: wire.HostSpec{Name: "bare", Protocol: "vnc", Address: "127.0.0.1", Port: v2.Port, SSHPort: testbed.FreePort(t)}})
	bare := must(t, c, wire.OpenArgs{HostID: "bare"}).LimbID
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: bare}, Until: "connected", TimeoutMs: intp(20000)})
	_, err = do(t, c, wire.RunArgs{Target: wire.Target{LimbID: bare}, Command: "true", TimeoutMs: 5000})
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.NotConnected || we.Cause != wire.FilesUnavailable || we.Next == "" {
		t.Fatalf("run on a desktop without SSH: %#v", err)
	}
}
