package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/daemon"
	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/wire"
)

func TestSSHLimbThroughDaemon(t *testing.T) {
	s := testbed.StartSSHD(t)
	t.Setenv("HOME", s.Home)
	t.Setenv("SSH_AUTH_SOCK", "")
	d := startDaemon(t)
	c := dial(t, d, "agent")
	r := must(t, c, wire.OpenArgs{Address: s.Host, Port: &s.Port, Protocol: "ssh"})
	if w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: intp(20000)}); !w.Wait.Settled {
		t.Fatalf("ssh limb: %+v", w.Observation)
	}
	id := r.LimbID

	_, err := do(t, c, wire.RunArgs{Target: wire.Target{LimbID: id}, Command: "true"})
	if client.Code(err) != wire.BadRequest {
		t.Fatalf("run without timeoutMs: %v", err)
	}
	run := must(t, c, wire.RunArgs{Target: wire.Target{LimbID: id}, Command: "echo out; echo err >&2; exit 3", TimeoutMs: 10000}).Run
	if run.ExitCode == nil || *run.ExitCode != 3 || run.Stdout != "out\n" || run.Stderr != "err\n" {
		t.Fatalf("run %+v", run)
	}
	x := 1
	_, err = do(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "click", X: &x, Y: &x, Generation: u64p(1)})
	if client.Code(err) != wire.WrongProtocol {
		t.Fatalf("click on a terminal: %v", err)
	}
	_, err = do(t, c, wire.TermSendArgs{Target: wire.Target{LimbID: id}, Text: strp("x")})
	if client.Code(err) != wire.LeaseNotHeld {
		t.Fatalf("term_send without the lease: %v", err)
	}
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	must(t, c, wire.TermSendArgs{Target: wire.Target{LimbID: id}, Text: strp("seq 1 3000; echo DONE-$((6*7))\n")})
	if w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "text", Text: strp("DONE-42"), TimeoutMs: intp(20000)}); !w.Wait.Settled {
		t.Fatal("terminal never showed DONE-42")
	}
	var all strings.Builder
	cursor := ""
	for i := 0; i < 10; i++ {
		tr := must(t, c, wire.TermReadArgs{Target: wire.Target{LimbID: id}, Since: cursor}).Term
		all.WriteString(tr.Data)
		if tr.Cursor == cursor {
			break
		}
		cursor = tr.Cursor
	}
	if testing.Verbose() {
		t.Logf("term_read start: %q", all.String()[:min(300, all.Len())])
	}
	for _, line := range []string{"1\r\n2\r\n", "\n1500\r\n", "\n2999\r\n", "\n3000\r\n"} {
		if !strings.Contains(all.String(), line) {
			t.Fatalf("term_read lost %q (scrolled past the grid)", line)
		}
	}
	scr := must(t, c, wire.ScreenArgs{Target: wire.Target{LimbID: id}}).Screen
	if len(scr.Text) == 0 || scr.Cursor == nil {
		t.Fatalf("terminal screen %+v", scr)
	}

	data := make([]byte, 300_000)
	rand.Read(data)
	blob := fmt.Sprintf("~/dvv-e2e-blob-%d", os.Getpid())
	must(t, c, wire.FilesArgs{Target: wire.Target{LimbID: id}, Action: "put", Path: blob, ContentBase64: base64.StdEncoding.EncodeToString(data), Mode: intp(0o640)})
	got := must(t, c, wire.FilesArgs{Target: wire.Target{LimbID: id}, Action: "get", Path: blob}).Files
	if b, _ := base64.StdEncoding.DecodeString(got.ContentBase64); !bytes.Equal(b, data) {
		t.Fatal("get differs from put")
	}
	local := filepath.Join(t.TempDir(), "blob")
	must(t, c, wire.FilesArgs{Target: wire.Target{LimbID: id}, Action: "get", Path: blob, To: local})
	if b, _ := os.ReadFile(local); !bytes.Equal(b, data) {
		t.Fatal("get to a local path differs")
	}
	home := must(t, c, wire.FilesArgs{Target: wire.Target{LimbID: id}, Action: "home"}).Files.Home
	remote := filepath.Join(home, strings.TrimPrefix(blob, "~/"))
	defer os.Remove(remote)
	if fi, err := os.Stat(remote); err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("remote file: %v %v", fi, err)
	}
	tr := must(t, c, wire.TransferArgs{Target: wire.Target{LimbID: id}, Action: "status"}).Transfer
	if tr.InFlight != 0 || tr.Note == "" {
		t.Fatalf("transfer %+v", tr)
	}
}

func TestSidecarFilesOnVNCLimb(t *testing.T) {
	s := testbed.StartSSHD(t)
	t.Setenv("HOME", s.Home)
	t.Setenv("SSH_AUTH_SOCK", "")
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 640, Height: 480})
	hs, err := hosts.Open(filepath.Join(t.TempDir(), "hosts.json"))
	if err != nil {
		t.Fatal(err)
	}
	d := startDaemonWith(t, daemon.Services{Hosts: hs}, nopWriter{})
	c := dial(t, d, "agent")
	must(t, c, wire.HostAddArgs{Host: wire.HostSpec{Name: "desk", Protocol: "vnc", Address: "127.0.0.1", Port: v.Port, SSHPort: s.Port, SSHUser: s.User}})
	r := must(t, c, wire.OpenArgs{HostID: "desk", Perceive: boolp(true)})
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: intp(20000)})
	home := must(t, c, wire.FilesArgs{Target: wire.Target{LimbID: r.LimbID}, Action: "home"}).Files.Home
	note := filepath.Join(home, fmt.Sprintf("dvv-sidecar-%d.txt", os.Getpid()))
	os.WriteFile(note, []byte("hello sidecar"), 0o644)
	defer os.Remove(note)
	f := must(t, c, wire.FilesArgs{Target: wire.Target{LimbID: r.LimbID}, Action: "get", Path: "~/" + filepath.Base(note)}).Files
	if b, _ := base64.StdEncoding.DecodeString(f.ContentBase64); string(b) != "hello sidecar" || f.Via != "sidecar" {
		t.Fatalf("sidecar get %+v", f)
	}
	// A desktop on a machine with no SSH server: FILES_UNAVAILABLE with the reason.
	v2 := testbed.StartXvnc(t, testbed.XvncOptions{Width: 640, Height: 480})
	must(t, c, wire.HostAddArgs{Host: wire.HostSpec{Name: "bare", Protocol: "vnc", Address: "127.0.0.1", Port: v2.Port, SSHPort: testbed.FreePort(t)}})
	r2 := must(t, c, wire.OpenArgs{HostID: "bare"})
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r2.LimbID}, Until: "connected", TimeoutMs: intp(20000)})
	_, err = do(t, c, wire.FilesArgs{Target: wire.Target{LimbID: r2.LimbID}, Action: "list", Path: "~"})
	if client.Code(err) != wire.FilesUnavailable {
		t.Fatalf("no SSH server: %v", err)
	}
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }

// TestTerminalShellExitIsExited: when the shell ends, status and limbs say
// exited at once (not connected), and the exit status is kept.
func TestTerminalShellExitIsExited(t *testing.T) {
	s := testbed.StartSSHD(t)
	t.Setenv("HOME", s.Home)
	t.Setenv("SSH_AUTH_SOCK", "")
	d := startDaemon(t)
	c := dial(t, d, "agent")
	r := must(t, c, wire.OpenArgs{Address: s.Host, Port: &s.Port, Protocol: "ssh"})
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: intp(20000)})
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: r.LimbID}, Action: "acquire"})
	must(t, c, wire.TermSendArgs{Target: wire.Target{LimbID: r.LimbID}, Text: strp("exit 3\n")})
	w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "exit", TimeoutMs: intp(15000)})
	if !w.Wait.Settled {
		t.Fatalf("wait exit: %+v", w.Wait)
	}
	testbed.Eventually(t, 10*time.Second, "state exited", func() bool {
		return must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: r.LimbID}}).Observation.State == wire.StateExited
	})
	for _, l := range must(t, c, wire.LimbsArgs{}).Limbs {
		if l.LimbID == r.LimbID && l.State != wire.StateExited {
			t.Fatalf("limbs says %s", l.State)
		}
	}
	if _, err := do(t, c, wire.TermSendArgs{Target: wire.Target{LimbID: r.LimbID}, Text: strp("x")}); client.Code(err) != wire.NotConnected {
		t.Fatalf("term_send after exit: %v", err)
	}
}

// TestSSHConfigAliasPort: an alias whose ~/.ssh/config entry names a
// non-default Port is dialled on that port when opened by address.
func TestSSHConfigAliasPort(t *testing.T) {
	s := testbed.StartSSHD(t)
	t.Setenv("HOME", s.Home)
	t.Setenv("SSH_AUTH_SOCK", "")
	testbed.AppendLines(t, filepath.Join(s.Home, ".ssh", "config"), "Host box", "  HostName 127.0.0.1", fmt.Sprintf("  Port %d", s.Port))
	d := startDaemon(t)
	c := dial(t, d, "agent")
	r := must(t, c, wire.OpenArgs{Address: "box", Protocol: "ssh"})
	w, err := do(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: intp(20000)})
	if err != nil || !w.Wait.Settled {
		t.Fatalf("open box (Port %d in ~/.ssh/config): %v", s.Port, err)
	}
	run := must(t, c, wire.RunArgs{Target: wire.Target{LimbID: r.LimbID}, Command: "echo $SSH_CONNECTION", TimeoutMs: 10000}).Run
	if f := strings.Fields(run.Stdout); len(f) != 4 || f[3] != fmt.Sprint(s.Port) {
		t.Fatalf("sshd saw the connection as %q, want server port %d", run.Stdout, s.Port)
	}

	// The alias with its Port given is the same endpoint: the same limb.
	again := must(t, c, wire.OpenArgs{Address: "box", Port: &s.Port, Protocol: "ssh"})
	if again.LimbID != r.LimbID {
		t.Fatalf("open box and open box --port %d gave two limbs: %s, %s", s.Port, r.LimbID, again.LimbID)
	}
	// Port 22 for that alias is another endpoint.
	p22 := 22
	other := must(t, c, wire.OpenArgs{Address: "box", Port: &p22, Protocol: "ssh"})
	if other.LimbID == r.LimbID {
		t.Fatal("open box --port 22 reused the limb of box's configured port")
	}
	must(t, c, wire.CloseArgs{LimbID: other.LimbID})
	// An address without a Port in the config: no port and port 22 are
	// one limb, as 5900 is for VNC and 3389 for RDP.
	plain := must(t, c, wire.OpenArgs{Address: "127.0.0.9", Protocol: "ssh"})
	plain22 := must(t, c, wire.OpenArgs{Address: "127.0.0.9", Port: &p22, Protocol: "ssh"})
	if plain.LimbID != plain22.LimbID || plain.LimbID != daemon.LimbID("ssh", "127.0.0.9", 22, 0) {
		t.Fatalf("open 127.0.0.9 with and without port 22: %s, %s", plain.LimbID, plain22.LimbID)
	}
	must(t, c, wire.CloseArgs{LimbID: plain.LimbID})
	ls := must(t, c, wire.LimbsArgs{})
	if len(ls.Limbs) != 1 || ls.Limbs[0].LimbID != r.LimbID || ls.Limbs[0].Port != s.Port {
		t.Fatalf("limbs after the duplicates: %+v", ls.Limbs)
	}
}

// TestSavedHostSidecarAppliesToOpenLimb: a desktop open by address, then
// opened again through a saved host with an SSH sidecar, serves files
// through that sidecar.
func TestSavedHostSidecarAppliesToOpenLimb(t *testing.T) {
	s := testbed.StartSSHD(t)
	t.Setenv("HOME", s.Home)
	t.Setenv("SSH_AUTH_SOCK", "")
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 240})
	hs, err := hosts.Open(filepath.Join(t.TempDir(), "hosts.json"))
	if err != nil {
		t.Fatal(err)
	}
	d := startDaemonWith(t, daemon.Services{Hosts: hs}, io.Discard)
	c := dial(t, d, "agent")
	byAddr := must(t, c, wire.OpenArgs{Address: "127.0.0.1", Port: &v.Port, Protocol: "vnc"}).LimbID
	must(t, c, wire.HostAddArgs{Host: wire.HostSpec{Name: "side", Protocol: "vnc", Address: "127.0.0.1", Port: v.Port, SSHPort: s.Port, SSHUser: s.User}})
	r := must(t, c, wire.OpenArgs{HostID: "side"})
	if r.LimbID != byAddr || !strings.Contains(r.Dispatched, "sidecar") {
		t.Fatalf("open side: limb %s (by address %s), %q", r.LimbID, byAddr, r.Dispatched)
	}
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: intp(20000)})
	marker := filepath.Join(s.RemoteHome, "sidecar-marker")
	if err := os.WriteFile(marker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := must(t, c, wire.FilesArgs{Target: wire.Target{LimbID: r.LimbID}, Action: "list", Path: s.RemoteHome}).Files
	found := false
	for _, e := range f.Entries {
		found = found || e.Name == "sidecar-marker"
	}
	if !found {
		t.Fatalf("files list through the sidecar: %+v", f)
	}
}

// TestUploadStopsWithItsCaller: a put whose caller goes away stops, and the
// remote never shows a complete-looking partial file (the data goes to a
// temporary name, renamed over the target only once complete).
func TestUploadStopsWithItsCaller(t *testing.T) {
	s := testbed.StartSSHD(t)
	t.Setenv("HOME", s.Home)
	t.Setenv("SSH_AUTH_SOCK", "")
	d := startDaemon(t)
	c := dial(t, d, "agent")
	r := must(t, c, wire.OpenArgs{Address: s.Host, Port: &s.Port, Protocol: "ssh"})
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: intp(20000)})

	big := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 4<<30); err != nil { // sparse: costs nothing to read
		t.Fatal(err)
	}
	dir := filepath.Join(s.RemoteHome, "up")
	os.Mkdir(dir, 0o755)
	target := filepath.Join(dir, "big.bin")

	caller, err := client.Dial(context.Background(), d.SocketPath(), client.Options{Name: "impatient"})
	if err != nil {
		t.Fatal(err)
	}
	must(t, caller, wire.StatusArgs{Target: wire.Target{LimbID: r.LimbID}})
	ctx, giveUp := context.WithCancel(context.Background())
	defer giveUp()
	go caller.Files(ctx, wire.FilesArgs{Target: wire.Target{LimbID: r.LimbID}, Action: "put", Path: target, From: big})
	partial := func() (string, int64) {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if strings.Contains(e.Name(), "dvv-part") {
				if fi, err := e.Info(); err == nil {
					return e.Name(), fi.Size()
				}
			}
		}
		return "", 0
	}
	testbed.Eventually(t, 20*time.Second, "the upload under way under a temporary name", func() bool {
		_, n := partial()
		return n > 0
	})
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the target exists while the upload is under way")
	}
	giveUp() // the caller gives up (dvv --timeout, an MCP notifications/cancelled): op cancel
	testbed.Eventually(t, 20*time.Second, "the upload stopped and its temporary file removed", func() bool {
		name, _ := partial()
		return name == ""
	})
	if _, err := os.Stat(target); err == nil {
		t.Fatal("a cancelled upload left the target file")
	}
	var outcome string
	testbed.Eventually(t, 10*time.Second, "the upload in the history", func() bool {
		for _, e := range must(t, c, wire.HistoryArgs{Target: wire.Target{LimbID: r.LimbID}}).History {
			if e.Op == "files" && e.Attachment == "impatient" {
				outcome = e.Outcome
				return true
			}
		}
		return false
	})
	if outcome == "ok" {
		t.Fatal("history records the abandoned upload as ok")
	}

	// A caller that is killed (its connection closed, no cancel sent)
	// stops its upload too.
	killed, err := client.Dial(context.Background(), d.SocketPath(), client.Options{Name: "killed"})
	if err != nil {
		t.Fatal(err)
	}
	must(t, killed, wire.StatusArgs{Target: wire.Target{LimbID: r.LimbID}})
	go killed.Files(context.Background(), wire.FilesArgs{Target: wire.Target{LimbID: r.LimbID}, Action: "put", Path: target, From: big})
	testbed.Eventually(t, 20*time.Second, "the second upload under way", func() bool {
		_, n := partial()
		return n > 0
	})
	killed.Close()
	testbed.Eventually(t, 20*time.Second, "the second upload stopped and its temporary file removed", func() bool {
		name, _ := partial()
		return name == ""
	})
	if _, err := os.Stat(target); err == nil {
		t.Fatal("an abandoned upload left the target file")
	}

	// A complete upload lands under its name with its mode.
	must(t, c, wire.FilesArgs{Target: wire.Target{LimbID: r.LimbID}, Action: "put", Path: target, ContentBase64: base64.StdEncoding.EncodeToString([]byte("whole")), Mode: intp(0o600)})
	b, err := os.ReadFile(target)
	fi, _ := os.Stat(target)
	if err != nil || string(b) != "whole" || fi.Mode().Perm() != 0o600 {
		t.Fatalf("complete upload: %q %v mode %v", b, err, fi.Mode())
	}
	if name, _ := partial(); name != "" {
		t.Fatalf("a temporary file is left: %s", name)
	}
}
