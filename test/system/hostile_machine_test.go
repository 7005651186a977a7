package system_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// vmHWM is a process's peak resident memory in KiB (/proc, VmHWM).
func vmHWM(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	t.Fatal("no VmHWM in /proc status")
	return 0
}

// TestHostileQMPSocketsThroughDvvd: limbs whose machine is a QMP socket
// that turns hostile (an endless greeting, an endless answer, lines that
// are not JSON, a flood of events). Each `dvv machine L state` answers a
// coded error at once, not after the act's 5-minute timeout; dvvd's
// peak memory stays within a few MiB of where it was; and dvvd still
// answers a well-behaved machine afterwards.
func TestHostileQMPSocketsThroughDvvd(t *testing.T) {
	x := testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 240})
	d := startDaemon(t, "")
	pid := d.proc.Cmd.Process.Pid
	// One VNC display, so one limb: each open names its machine afresh.
	goodSock := "qmp:" + testbed.HostileQMP(t, testbed.QMPFakeRunning)
	d.must("machine", openMachine(t, d, x.Addr, goodSock), "state")
	before := vmHWM(t, pid)
	for _, b := range []string{testbed.QMPEndlessGreeting, testbed.QMPEndlessReply, testbed.QMPGarbage, testbed.QMPEventFlood} {
		limb := openMachine(t, d, x.Addr, "qmp:"+testbed.HostileQMP(t, b))
		r := d.dvv("machine", limb, "state")
		wantExit(t, r, wire.ExitConnection, wire.ProtocolError)
		if strings.Contains(r.stderr, "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv") || len(r.stderr) > 2000 {
			t.Errorf("%s: the refusal repeats what the server sent: %.300s", b, r.stderr)
		}
	}
	grew := vmHWM(t, pid) - before
	t.Logf("dvvd's peak RSS grew by %d KiB across the hostile sockets", grew)
	if grew > 32<<10 {
		t.Errorf("dvvd's peak RSS grew by %d MiB reading hostile QMP sockets (limit 32 MiB)", grew>>10)
	}
	if r := d.must("machine", openMachine(t, d, x.Addr, goodSock), "state", "--json"); response(t, r).Machine.State != wire.MachineRunning {
		t.Errorf("the well-behaved machine no longer reads as running: %v", r)
	}
}

// buildFakeQMP builds the fake QMP server into a directory another uid
// can run it from.
func buildFakeQMP(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "dvv-fakeqmp-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "fakeqmp")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/fakeqmp").CombinedOutput(); err != nil {
		t.Fatalf("build the fake QMP server: %v\n%s", err, out)
	}
	return bin
}

// plantQMP runs the fake QMP server as nobody, listening at path, and
// waits for it to listen.
func plantQMP(t *testing.T, bin, path string) *testbed.Proc {
	t.Helper()
	cmd := exec.Command("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", bin, path, testbed.QMPFakeRunning)
	p := testbed.Start(t, "planted-qmp", cmd)
	testbed.WaitFile(t, path, 10*time.Second)
	return p
}

func accepted(p *testbed.Proc) int {
	b, _ := os.ReadFile(p.Log)
	return strings.Count(string(b), "accepted")
}

// TestPlantedQMPSocketIsRefused: another local user (nobody) serves a
// fake machine that claims to run, on a socket of their own in /tmp, on
// a socket in a directory they own, and on a socket whose file was
// handed to root but whose listener is still theirs. dvvd refuses each
// with a coded error saying what to do, reports no state of the fake
// machine, and (for the first two) never connects to it at all.
func TestPlantedQMPSocketIsRefused(t *testing.T) {
	testbed.Need(t, "setpriv")
	testbed.NeedRoot(t, "running a QMP server as another user")
	bin := buildFakeQMP(t)
	x := testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 240})
	d := startDaemon(t, "")

	refused := func(what, sock string, p *testbed.Proc, connects bool) {
		t.Helper()
		limb := openMachine(t, d, x.Addr, "qmp:"+sock)
		r := d.dvv("machine", limb, "state", "--json")
		wantExit(t, r, wire.ExitDenied, wire.PolicyDenied)
		if strings.Contains(r.stdout, wire.MachineRunning) {
			t.Errorf("%s: dvvd reported the fake machine's state: %v", what, r)
		}
		if !strings.Contains(r.stderr, "not trusted") {
			t.Errorf("%s: the refusal does not say why: %v", what, r)
		}
		if n := accepted(p); !connects && n != 0 {
			t.Errorf("%s: dvvd connected to the planted socket (%d connections)", what, n)
		}
	}

	// A socket of nobody's in a sticky, world-writable directory.
	shared, err := os.MkdirTemp("/tmp", "dvv-shared-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(shared) })
	os.Chmod(shared, 0o1777)
	own := filepath.Join(shared, "qmp.sock")
	refused("socket of another user", own, plantQMP(t, bin, own), false)

	// A socket in a directory nobody owns.
	theirs := filepath.Join(shared, "theirs")
	if err := os.Mkdir(theirs, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chown(theirs, 65534, 65534)
	inTheirs := filepath.Join(theirs, "qmp.sock")
	p := plantQMP(t, bin, inTheirs)
	os.Chown(inTheirs, 0, 0) // the file is ours now; the directory is still theirs
	refused("socket in another user's directory", inTheirs, p, false)

	// A socket file handed to root in a sticky directory, still served
	// by nobody: only the listener's uid tells.
	handed := filepath.Join(shared, "handed.sock")
	p = plantQMP(t, bin, handed)
	if err := os.Chown(handed, 0, 0); err != nil {
		t.Fatal(err)
	}
	refused("socket served by another user", handed, p, true)

	// The rule does not refuse QEMU run as this user.
	mine := openMachine(t, d, x.Addr, "qmp:"+testbed.HostileQMP(t, testbed.QMPFakeRunning))
	if r := d.must("machine", mine, "state", "--json"); response(t, r).Machine.State != wire.MachineRunning {
		t.Errorf("a socket of this user's was not read: %v", r)
	}
}
