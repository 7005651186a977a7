// Package system_test builds the real dvvd and dvv, starts dvvd, and drives
// it with the dvv binary the way a person or a script does, checking ground
// truth on the far side (the X server behind a VNC server, the keychain).
package system_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/internal/wiretest"
	"github.com/dvvhq/dvv/pkg/wire"
)

// The binaries under test, built once by TestMain.
var dvvBin, dvvdBin, dvvmcpBin string

func TestMain(m *testing.M) {
	if dir := os.Getenv("DVV_SQUAT_DIR"); dir != "" {
		squat(dir, os.Getenv("DVV_SQUAT_LOG")) // this process is another user's squatter
		return
	}
	if role := os.Getenv("DVV_HOSTILE_ROLE"); role != "" {
		os.Exit(hostileRole(role)) // this process is another user attacking the viewer
	}
	if out := os.Getenv("DVV_PEAK_RSS_FILE"); out != "" {
		os.Exit(peakRSSOf(out, os.Args[1:])) // this process measures a command's memory
	}
	dir, err := os.MkdirTemp("", "dvv-system-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	dvvBin, dvvdBin, dvvmcpBin = filepath.Join(dir, "dvv"), filepath.Join(dir, "dvvd"), filepath.Join(dir, "dvvmcp")
	for bin, pkg := range map[string]string{dvvBin: "./cmd/dvv", dvvdBin: "./cmd/dvvd", dvvmcpBin: "./cmd/dvvmcp"} {
		cmd := exec.Command("go", "build", "-o", bin, pkg)
		cmd.Dir = "../.."
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build %s: %v\n%s", pkg, err, out)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var instances atomic.Int64

// daemon is one running dvvd with its own socket, home and config.
type daemon struct {
	t      testing.TB
	id     string
	socket string
	home   string
	proc   *testbed.Proc
	env    []string // environment of dvvd and of every dvv command
}

// cleanEnv is the test process's environment without anything that would
// point dvv or dvvd at the user's own daemon, config or keychain.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "HOME", k == "DBUS_SESSION_BUS_ADDRESS", strings.HasPrefix(k, "XDG_"), strings.HasPrefix(k, "DVV_"):
			continue
		}
		env = append(env, kv)
	}
	return env
}

// startDaemon starts dvvd with a unique --id, no discovery, and HOME and
// XDG_CONFIG_HOME in a temporary directory. busAddress, when not empty, is
// the session bus its keychain uses; otherwise it gets a bus path where
// nothing listens, so no keychain is reachable.
func startDaemon(t testing.TB, busAddress string) *daemon {
	t.Helper()
	return startDaemonIn(t, busAddress, t.TempDir())
}

// startDaemonIn is startDaemon with a given HOME (e.g. one whose ~/.ssh
// holds a client key and known_hosts).
func startDaemonIn(t testing.TB, busAddress, home string, extraEnv ...string) *daemon {
	t.Helper()
	return startDaemonArgs(t, busAddress, home, nil, extraEnv...)
}

// startDaemonArgs is startDaemonIn with extra dvvd flags.
func startDaemonArgs(t testing.TB, busAddress, home string, args []string, extraEnv ...string) *daemon {
	t.Helper()
	if busAddress == "" {
		busAddress = "unix:path=" + filepath.Join(home, "no-bus")
	}
	id := fmt.Sprintf("sys%d-%d", os.Getpid(), instances.Add(1))
	d := &daemon{t: t, id: id, socket: filepath.Join(home, "dvv", id+".sock"), home: home}
	d.env = append(cleanEnv(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_RUNTIME_DIR="+home, "DBUS_SESSION_BUS_ADDRESS="+busAddress, "DVV_SOCKET="+d.socket)
	d.env = append(d.env, extraEnv...)
	cmd := exec.Command(dvvdBin, append([]string{"--id", id, "--no-discovery", "--log-level", "debug"}, args...)...)
	cmd.Env = d.env
	d.proc = testbed.Start(t, "dvvd", cmd)
	testbed.WaitFile(t, d.socket, 10*time.Second)
	testbed.Eventually(t, 10*time.Second, "dvvd to answer ping", func() bool { return d.dvv("ping").code == 0 })
	return d
}

// log is what dvvd has logged so far.
func (d *daemon) log() string {
	b, _ := os.ReadFile(d.proc.Log)
	return string(b)
}

// result is one finished dvv command.
type result struct {
	args           []string
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("dvv %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

// dvv runs the dvv binary in the test's default shell session.
func (d *daemon) dvv(args ...string) result { return d.run("shell-a", "", nil, args...) }

// run runs dvv in a named session (DVV_SESSION), with stdin and extra
// environment.
func (d *daemon) run(session, stdin string, extraEnv []string, args ...string) result {
	d.t.Helper()
	cmd := exec.Command(dvvBin, args...)
	cmd.Env = append(append(append([]string{}, d.env...), "DVV_SESSION="+session), extraEnv...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := result{args: args, stdout: out.String(), stderr: errOut.String()}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			d.t.Fatalf("run dvv %v: %v", args, err)
		}
		r.code = ee.ExitCode()
	}
	return r
}

// must runs dvv and fails the test unless it exits 0.
func (d *daemon) must(args ...string) result {
	d.t.Helper()
	r := d.dvv(args...)
	if r.code != 0 {
		d.t.Fatalf("%v", r)
	}
	return r
}

// wantExit checks a result's exit status and that stderr names the code.
func wantExit(t *testing.T, r result, exit int, code wire.Code) {
	t.Helper()
	if r.code != exit {
		t.Fatalf("want exit %d (%s), got %v", exit, code, r)
	}
	if code != "" && !strings.Contains(r.stderr, string(code)) {
		t.Fatalf("stderr does not name %s: %v", code, r)
	}
}

// response parses --json output: exactly one JSON object.
func response(t *testing.T, r result) *wiretest.Response {
	t.Helper()
	var resp wiretest.Response
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	if err := dec.Decode(&resp); err != nil {
		t.Fatalf("--json output does not parse: %v\n%v", err, r)
	}
	if dec.More() {
		t.Fatalf("--json printed more than one object:\n%v", r)
	}
	return &resp
}

// eventsSubscribed reads dvv events' stderr until it says the subscription
// is in place (true), or it ends or the time runs out (false). The rest of
// stderr is drained so the command never blocks on it.
func eventsSubscribed(stderr io.Reader, within time.Duration) bool {
	subscribed := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		said := false
		for sc.Scan() {
			if !said && strings.Contains(sc.Text(), "subscribed") {
				said = true
				subscribed <- true
			}
		}
		if !said {
			close(subscribed)
		}
	}()
	select {
	case ok := <-subscribed:
		return ok
	case <-time.After(within):
		return false
	}
}
