package system_test

import (
	"bytes"
	"image/png"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// sh runs a shell script with dvvd's environment and the dvv under test
// first on PATH, as a user's script would: stdout is a pipe.
func (d *daemon) sh(session, script string) result {
	d.t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Env = append(append([]string{}, d.env...), "DVV_SESSION="+session,
		"PATH="+filepath.Dir(dvvBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := result{args: []string{"sh", "-c", script}, stdout: out.String(), stderr: errOut.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		d.t.Fatal(err)
	}
	return r
}

// deadPort is a port on 127.0.0.1 where nothing listens.
func deadPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestOpenInAPipe: the pattern open's help shows, LIMB=$(dvv open …) then
// dvv screen "$LIMB", works in a script (stdout a pipe): open waits for
// the connection there too, and the screen is the X server's own size. A
// failed open closes the limb it made; --keep leaves it retrying; a limb
// another shell had open is left as it was.
func TestOpenInAPipe(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")
	x := testbed.StartXvnc(t, testbed.XvncOptions{Width: 640, Height: 480})
	// The answer itself says connected: open did not return while the
	// limb was still connecting (stdout is a pipe here).
	first := response(t, d.dvv("open", x.Addr, "--protocol", "vnc", "--perceive", "--json"))
	if first.Observation == nil || first.Observation.State != wire.StateConnected {
		t.Fatalf("open in a pipe answered before the limb connected: %+v", first.Observation)
	}
	d.must("close", first.LimbID)
	shot := filepath.Join(t.TempDir(), "shot.png")
	r := d.sh("script", `LIMB=$(dvv open `+x.Addr+` --protocol vnc --perceive) && dvv screen "$LIMB" --out `+shot)
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(f)
	f.Close()
	if err != nil || cfg.Width != 640 || cfg.Height != 480 {
		t.Fatalf("the screen read is %dx%d (%v), the server's is 640x480", cfg.Width, cfg.Height, err)
	}

	dead := deadPort(t)
	r = d.dvv("open", dead, "--protocol", "vnc", "--wait-timeout", "20s")
	wantExit(t, r, wire.ExitConnection, wire.Unreachable)
	if !strings.Contains(r.stderr, "was closed: open it again") || strings.Contains(r.stderr, ".;") {
		t.Errorf("a failed open does not say the limb was closed: %v", r)
	}
	if l := response(t, d.must("limbs", "--json")); len(l.Limbs)+len(l.Available) != 1 {
		t.Errorf("a failed open left its limb behind: %+v %+v", l.Limbs, l.Available)
	}

	r = d.dvv("open", dead, "--protocol", "vnc", "--keep", "--wait-timeout", "20s")
	wantExit(t, r, wire.ExitConnection, wire.Unreachable)
	if !strings.Contains(r.stderr, "keeps retrying") {
		t.Errorf("--keep: %v", r)
	}
	kept := response(t, d.dvv("open", dead, "--protocol", "vnc", "--wait=false", "--json")).LimbID
	if o := status(t, d, "shell-a", kept); o.State == wire.StateClosed {
		t.Errorf("--keep closed the limb: %+v", o)
	}
	// Another shell's failing open of that limb leaves it open.
	r = d.run("shell-b", "", nil, "open", dead, "--protocol", "vnc", "--wait-timeout", "20s")
	wantExit(t, r, wire.ExitConnection, wire.Unreachable)
	if !strings.Contains(r.stderr, "already open") {
		t.Errorf("a failed open of a limb already open: %v", r)
	}
	if o := status(t, d, "shell-a", kept); o.State == wire.StateClosed {
		t.Errorf("another shell's failed open closed the limb: %+v", o)
	}
}

// TestTimeFlagsOnARealTerminal: `dvv run L --timeout 5s` runs (the
// spelling the issue tried first), --timeout-ms and --timeoutMs still do,
// and a short deadline ends a long command on the server (exit 124); a
// wait asked for longer than dvvd's 25 s says it was clamped.
func TestTimeFlagsOnARealTerminal(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	d := startDaemonIn(t, "", s.Home)
	limb := strings.TrimSpace(d.must("open", "ssh://"+s.Addr).stdout)
	for _, flag := range [][]string{{"--timeout", "5s"}, {"--timeout-ms", "5000"}, {"--timeoutMs", "5000"}} {
		r := d.dvv(append(append([]string{"run", limb}, flag...), "echo ran")...)
		if r.code != 0 || strings.TrimSpace(r.stdout) != "ran" {
			t.Errorf("run %v: %v", flag, r)
		}
	}
	marker := filepath.Join(t.TempDir(), "finished")
	r := d.dvv("run", limb, "--timeout", "1500ms", "sleep 10; touch "+marker)
	if r.code != 124 {
		t.Errorf("run --timeout 1500ms of a 10 s command: %v", r)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran to its end past the deadline")
	}
	wantExit(t, d.dvv("run", limb, "--timeout", "5000", "true"), wire.ExitUsage, "")

	r = d.dvv("wait", limb, "--until", "text", "--text", "never-printed-text", "--timeout", "26s", "--json")
	if r.code != 11 {
		t.Fatalf("wait past the clamp: %v", r)
	}
	if w := response(t, r).Wait; w == nil || !strings.Contains(w.Detail, "clamped to 25000") {
		t.Errorf("the answer does not say it was clamped: %v", r)
	}
}

// TestSessionNames: DVV_SESSION (or --session) names the session, so a
// lease shows who holds it ("held by agent"), not "shell".
func TestSessionNames(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")
	_, limb := openVNC(t, d)
	d.run("agent", "", nil, "control", "acquire", limb)
	r := d.run("shell-b", "", nil, "control", "status", limb)
	if !strings.Contains(r.stdout, "held by agent") {
		t.Errorf("the lease holder is not named: %v", r)
	}
	r = d.run("shell-b", "", nil, "--session", "person", "control", "acquire", limb)
	wantExit(t, r, wire.ExitLease, wire.LeaseNotHeld)
	if !strings.Contains(r.stderr, "held by agent") {
		t.Errorf("LEASE error: %v", r)
	}
	d.run("agent", "", nil, "control", "release", limb)
	d.run("shell-b", "", nil, "--session", "person", "control", "acquire", limb)
	if r := d.run("agent", "", nil, "control", "status", limb); !strings.Contains(r.stdout, "held by person") {
		t.Errorf("--session did not name the holder: %v", r)
	}
}

// TestSocketCommand: `dvv socket` prints the socket dvv uses (from
// DVV_SOCKET, else XDG_RUNTIME_DIR), and the README's raw-socket line
// reaches dvvd through it.
func TestSocketCommand(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")
	if got := strings.TrimSpace(d.must("socket").stdout); got != d.socket {
		t.Errorf("dvv socket = %q, want %q", got, d.socket)
	}
	testbed.Need(t, "nc")
	r := d.sh("script", `printf '{"op":"ping"}\n' | timeout 10 nc -NU "$(dvv socket)"`)
	if !strings.Contains(r.stdout, `"result":"ping"`) {
		t.Errorf("ping through $(dvv socket): %v", r)
	}
	rt := t.TempDir()
	os.Chmod(rt, 0o700)
	cmd := exec.Command(dvvBin, "socket")
	cmd.Env = append(cleanEnv(), "XDG_RUNTIME_DIR="+rt)
	out, _ := cmd.Output()
	if got := strings.TrimSpace(string(out)); got != filepath.Join(rt, "dvv", "default.sock") {
		t.Errorf("with XDG_RUNTIME_DIR: dvv socket = %q", got)
	}
}

// TestJSONCoversUsageErrors: with --json a command-line mistake prints one
// JSON object of dvvd's shape on stdout (BAD_REQUEST, exit 2).
func TestJSONCoversUsageErrors(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")
	for _, args := range [][]string{
		{"--json", "open"}, {"open", "a", "b", "--json"}, {"open", "x", "--bogus", "--json"},
		{"--json", "click", "vnc-1", "x", "2"}, {"--json", "run", "ssh-1", "true"}, {"--json", "nosuchcommand"},
	} {
		r := d.dvv(args...)
		if r.code != wire.ExitUsage {
			t.Errorf("%v: %v", args, r)
			continue
		}
		if resp := response(t, r); resp.Result != wire.ResultError || resp.Code != wire.BadRequest || resp.Message == "" {
			t.Errorf("%v: %+v", args, resp)
		}
	}
}

// TestNewcomerHints: --verify's help states one default; `dvv version`
// through an ssh:// socket that fails says why (ssh's own words) and exits
// 3; a missing remote file gets a hint about paths; UNKNOWN_KEY points to
// docs/keys.md; control status is the one help lists.
func TestNewcomerHints(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	d := startDaemonIn(t, "", s.Home)

	// A home that does not know the server's host key.
	stranger := t.TempDir()
	os.MkdirAll(filepath.Join(stranger, ".ssh"), 0o700)
	cmd := exec.Command(dvvBin, "version", "--socket", "ssh://"+s.User+"@127.0.0.1:"+strconv.Itoa(s.Port))
	cmd.Env = append(cleanEnv(), "HOME="+stranger)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	ee, _ := err.(*exec.ExitError)
	if ee == nil || ee.ExitCode() != wire.ExitDaemon || !strings.Contains(errOut.String(), "Host key verification failed") ||
		strings.Contains(out.String(), "not running") {
		t.Errorf("version through a failing ssh://: %v\nstdout %s\nstderr %s", err, out.String(), errOut.String())
	}

	limb := strings.TrimSpace(d.must("open", "ssh://"+s.Addr).stdout)
	r := d.dvv("files", "get", limb, "/nonexistent-dir/file", filepath.Join(t.TempDir(), "f"))
	wantExit(t, r, wire.ExitGone, wire.NotFound)
	if !strings.Contains(r.stderr, "files ls") || strings.Contains(r.stderr, "token") {
		t.Errorf("files get NOT_FOUND hint: %v", r)
	}
	if help := d.must("control", "--help").stdout; strings.Contains(help, "yield-status") || !strings.Contains(help, "status") {
		t.Errorf("control help: %s", help)
	}
	d.must("control", "yield-status", limb) // still answers, hidden

	x := testbed.StartXvnc(t, testbed.XvncOptions{})
	vnc := strings.TrimSpace(d.must("open", x.Addr, "--protocol", "vnc").stdout)
	d.must("control", "acquire", vnc)
	r = d.dvv("key", vnc, "ctrl+nosuchkey")
	wantExit(t, r, wire.ExitUsage, wire.UnknownKey)
	if !strings.Contains(r.stderr, "docs/keys.md") {
		t.Errorf("UNKNOWN_KEY hint: %v", r)
	}
}

// TestHostWithoutPasswordNeedsNoKeychain: on a machine with no session
// bus, a host saved without a password opens (a real Xvnc without auth);
// the keychain is never asked.
func TestHostWithoutPasswordNeedsNoKeychain(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "") // its bus address points where nothing listens
	x := testbed.StartXvnc(t, testbed.XvncOptions{})
	d.must("hosts", "add", "lab", "--address", x.Addr, "--protocol", "vnc")
	r := d.dvv("open", "lab")
	if r.code != 0 {
		t.Fatalf("open of a host without a password: %v", r)
	}
	if o := status(t, d, "shell-a", strings.TrimSpace(r.stdout)); o.State != wire.StateConnected {
		t.Errorf("not connected: %+v", o)
	}
}
