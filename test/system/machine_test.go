package system_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/digitalocean/go-qemu/qmp"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// The machine tests drive a real QEMU (TCG) booting a 512-byte boot sector
// that echoes every key on the VGA text screen, through the real dvvd and
// dvv. Ground truth is the hypervisor's own picture of the screen: QMP's
// screendump, or virsh screenshot for a libvirt domain, read with
// tesseract.

// guestText reads the guest's text screen as the hypervisor shows it.
func guestText(t *testing.T, shot func(path string)) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "screen.ppm")
	shot(p)
	cmd := exec.Command("tesseract", p, "-")
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tesseract: %v", err)
	}
	return string(out)
}

// qmpScreendump writes QEMU's VGA picture to path (QMP screendump), on a
// connection of its own: dvvd holds none between acts.
func qmpScreendump(t *testing.T, sock string) func(string) {
	return func(path string) {
		t.Helper()
		mon, err := qmp.NewSocketMonitor("unix", sock, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if err := mon.Connect(); err != nil {
			t.Fatal(err)
		}
		defer mon.Disconnect()
		b, _ := json.Marshal(qmp.Command{Execute: "screendump", Args: map[string]string{"filename": path}})
		if _, err := mon.Run(b); err != nil {
			t.Fatalf("screendump: %v", err)
		}
	}
}

func virshScreenshot(t *testing.T, lv *testbed.Libvirtd, dom string) func(string) {
	return func(path string) {
		t.Helper()
		lv.Virsh(t, "screenshot", dom, path)
	}
}

// waitGuestText waits until the guest's screen shows want (or, with
// absent, no longer shows it).
func waitGuestText(t *testing.T, shot func(string), want string, absent bool) string {
	t.Helper()
	var last string
	testbed.Eventually(t, 30*time.Second, fmt.Sprintf("the guest's screen to show %q (absent %v)", want, absent), func() bool {
		last = guestText(t, shot)
		return strings.Contains(last, want) != absent
	})
	return last
}

// openMachine opens the VM's VNC display as a limb that knows its machine.
func openMachine(t *testing.T, d *daemon, vncAddr, machine string) string {
	t.Helper()
	r := d.dvv("open", vncAddr, "--protocol", "vnc", "--perceive", "--machine", machine)
	if r.code != 0 {
		t.Fatal(r)
	}
	limb := strings.TrimSpace(r.stdout)
	d.must("wait", limb, "--until", "connected", "--timeout-ms", "15000")
	return limb
}

// restoreRoundTrip is the heart of both backends' tests: a snapshot taken,
// text typed into the echoing guest, the snapshot restored; the guest's
// screen and dvv's mirror both show the earlier screen, the lease is
// kept, the fence is armed, the generation moved on, and the limb types
// again without a manual reconnect.
func restoreRoundTrip(t *testing.T, d *daemon, limb string, shot func(string)) {
	t.Helper()
	waitGuestText(t, shot, "Booting from Hard", false)
	d.must("control", "acquire", limb)
	shotPNG := filepath.Join(t.TempDir(), "a.png")
	d.must("screen", limb, "--out", shotPNG)

	r := d.must("machine", limb, "snapshot", "create", "clean-1", "--json")
	if s := response(t, r).Snapshot; s == nil || s.Name != "clean-1" || !s.Memory {
		t.Fatalf("snapshot create answered %v", r)
	}
	r = d.must("machine", limb, "snapshot", "list", "--json")
	if l := response(t, r).Snapshots; len(l) != 1 || l[0].Name != "clean-1" || !l[0].Memory {
		t.Fatalf("snapshot list answered %v", r)
	}

	d.must("type", limb, "dirty")
	waitGuestText(t, shot, "dirty", false)
	before := status(t, d, "shell-a", limb)

	r = d.must("machine", limb, "snapshot", "restore", "clean-1", "--json")
	o := response(t, r).Observation
	if o == nil || o.State != wire.StateConnected {
		t.Fatalf("restore answered no connected observation: %v", r)
	}
	if o.Geometry.Generation <= before.Geometry.Generation {
		t.Errorf("the generation stayed at %d across the restore", o.Geometry.Generation)
	}
	if o.Reconnects <= before.Reconnects {
		t.Errorf("the limb's screen did not reconnect (reconnects %d, before %d)", o.Reconnects, before.Reconnects)
	}
	if o.Machine == nil || o.Machine.Act != "restore" || o.Machine.Snapshot != "clean-1" {
		t.Errorf("the observation does not say the machine was restored: %+v", o.Machine)
	}
	if o.Fence == nil || !o.Fence.Armed || !strings.Contains(o.Fence.Reason, "restored to snapshot clean-1") {
		t.Errorf("the typing fence is not armed by the restore: %+v", o.Fence)
	}
	if !o.Lease.Held {
		t.Errorf("the lease was lost across the restore: %+v", o.Lease)
	}
	// Ground truth: the hypervisor's picture is the earlier screen.
	waitGuestText(t, shot, "dirty", true)
	// And dvv's mirror shows it too, without a manual reconnect.
	var found result
	deadline := time.Now().Add(20 * time.Second)
	for {
		found = d.dvv("find", limb, "dirty", "--json")
		if strings.Contains(found.stdout, `"find":{"matches":[]`) {
			break
		}
		if time.Now().After(deadline) {
			png := filepath.Join(os.TempDir(), "dvv-machine-mirror.png")
			d.dvv("screen", limb, "--out", png)
			t.Fatalf("the mirror still shows the typed text after the restore (picture in %s): %v", png, found)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// Typing before a fresh read is refused: the screen changed under it.
	wantExit(t, d.dvv("type", limb, "x"), wire.ExitFence, wire.ScreenChanged)
	d.must("screen", limb, "--out", shotPNG)
	d.must("type", limb, "again")
	text := waitGuestText(t, shot, "again", false)
	if strings.Contains(text, "dirty") {
		t.Errorf("the restored guest still shows the text typed after the snapshot:\n%s", text)
	}
	if r := d.must("control", "status", limb); !strings.Contains(r.stdout, "held by you") {
		t.Errorf("the lease is not held after the restore: %v", r)
	}
	d.must("machine", limb, "snapshot", "delete", "clean-1")
	wantExit(t, d.dvv("machine", limb, "snapshot", "restore", "clean-1"), wire.ExitGone, wire.NotFound)
}

// TestMachineQMPSnapshotRestoreShowsTheEarlierScreen: through QMP.
func TestMachineQMPSnapshotRestoreShowsTheEarlierScreen(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "tesseract")
	vm := testbed.StartQEMUMachine(t, 64)
	d := startDaemon(t, "")
	limb := openMachine(t, d, vm.Addr, "qmp:"+vm.QMP)
	restoreRoundTrip(t, d, limb, qmpScreendump(t, vm.QMP))
}

// TestMachineLibvirtSnapshotRestoreShowsTheEarlierScreen: through a real
// libvirtd of the test's own, whose domain boots the same disk.
func TestMachineLibvirtSnapshotRestoreShowsTheEarlierScreen(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "tesseract")
	lv := testbed.StartLibvirtd(t)
	vnc := lv.DefineEcho(t, "echo-restore", 64)
	d := startDaemon(t, "")
	limb := openMachine(t, d, vnc.Addr, "libvirt:echo-restore?uri=qemu:///session&socket="+lv.Socket)
	restoreRoundTrip(t, d, limb, virshScreenshot(t, lv, "echo-restore"))
	if s := strings.TrimSpace(lv.Virsh(t, "domstate", "echo-restore")); s != "running" {
		t.Errorf("virsh says %q after the restore", s)
	}
}

// TestMachinePauseFreezesTheScreen: the guest's text cursor blinks while
// it runs, so the mirror changes within 2 s; paused, nothing changes for
// 2 s and typed keys are not echoed (QEMU drops input while the machine
// is stopped); resumed, both come back.
func TestMachinePauseFreezesTheScreen(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "tesseract")
	vm := testbed.StartQEMUMachine(t, 64)
	shot := qmpScreendump(t, vm.QMP)
	d := startDaemon(t, "")
	limb := openMachine(t, d, vm.Addr, "qmp:"+vm.QMP)
	waitGuestText(t, shot, "Booting from Hard", false)
	d.must("control", "acquire", limb)
	d.must("wait", limb, "--until", "screen-changed", "--timeout", "5s")

	r := d.must("machine", limb, "pause", "--json")
	if m := response(t, r).Machine; m == nil || m.State != wire.MachinePaused || m.Detail != "paused" {
		t.Fatalf("pause answered %v", r)
	}
	// An update the server was sending as the machine stopped may still
	// land: let it, then watch for 2 s, on the hypervisor's own picture and
	// on the mirror's pixels (QEMU's VNC server may send unchanged areas
	// again, which a damage-based wait would count).
	d.must("wait", limb, "--until", "screen-stable", "--quiet-ms", "500", "--timeout", "10s")
	dir := t.TempDir()
	shot(filepath.Join(dir, "h1.ppm"))
	d.must("screen", limb, "--out", filepath.Join(dir, "m1.png"))
	time.Sleep(2 * time.Second) // the span the guest must stand still
	shot(filepath.Join(dir, "h2.ppm"))
	d.must("screen", limb, "--out", filepath.Join(dir, "m2.png"))
	if !sameFile(t, filepath.Join(dir, "h1.ppm"), filepath.Join(dir, "h2.ppm")) {
		t.Fatalf("the paused machine's own picture changed within 2 s")
	}
	if !samePNGPixels(t, filepath.Join(dir, "m1.png"), filepath.Join(dir, "m2.png")) {
		t.Fatalf("the paused machine's mirror changed within 2 s")
	}
	d.must("screen", limb, "--out", filepath.Join(t.TempDir(), "p.png"))
	d.must("type", limb, "frozen")
	if text := guestText(t, shot); strings.Contains(text, "frozen") {
		t.Fatalf("a paused guest echoed keys:\n%s", text)
	}

	r = d.must("machine", limb, "resume", "--json")
	if m := response(t, r).Machine; m == nil || m.State != wire.MachineRunning {
		t.Fatalf("resume answered %v", r)
	}
	d.must("wait", limb, "--until", "screen-changed", "--timeout", "5s")
	d.must("screen", limb, "--out", filepath.Join(t.TempDir(), "r.png"))
	d.must("type", limb, "thawed")
	if text := waitGuestText(t, shot, "thawed", false); strings.Contains(text, "frozen") {
		t.Errorf("keys sent while paused reached the guest later:\n%s", text)
	}
}

// TestMachineResetAndPowerAreSeenByTheGuest: reset boots the machine
// again (SeaBIOS's banner, and the typed text gone, on the hypervisor's
// picture) and the limb's screen comes back by itself; the power button
// reaches a guest with no ACPI code (the boot sector), which keeps running
// and echoing, as real firmware without an OS would.
func TestMachineResetAndPowerAreSeenByTheGuest(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "tesseract")
	vm := testbed.StartQEMUMachine(t, 64)
	shot := qmpScreendump(t, vm.QMP)
	d := startDaemon(t, "")
	limb := openMachine(t, d, vm.Addr, "qmp:"+vm.QMP)
	waitGuestText(t, shot, "Booting from Hard", false)
	d.must("control", "acquire", limb)
	d.must("screen", limb, "--out", filepath.Join(t.TempDir(), "a.png"))
	d.must("type", limb, "before")
	waitGuestText(t, shot, "before", false)

	r := d.must("machine", limb, "reset", "--json")
	if o := response(t, r).Observation; o == nil || o.State != wire.StateConnected || o.Machine == nil || o.Machine.Act != "reset" {
		t.Fatalf("reset answered %v", r)
	}
	text := waitGuestText(t, shot, "before", true)
	waitGuestText(t, shot, "SeaBIOS", false)
	if !strings.Contains(text, "SeaBIOS") && !strings.Contains(guestText(t, shot), "SeaBIOS") {
		t.Fatalf("the reset guest does not show SeaBIOS:\n%s", text)
	}

	r = d.must("machine", limb, "power", "--json")
	if m := response(t, r).Machine; m == nil || m.State != wire.MachineRunning {
		t.Fatalf("power answered %v", r)
	}
	waitGuestText(t, shot, "Booting from Hard", false)
	d.must("screen", limb, "--out", filepath.Join(t.TempDir(), "b.png"))
	d.must("type", limb, "after")
	waitGuestText(t, shot, "after", false)

	// A hard stop ends QEMU: the machine reads as shut off.
	d.must("machine", limb, "stop")
	testbed.Eventually(t, 10*time.Second, "QEMU to exit", vm.Server.Exited)
	r = d.must("machine", limb, "state", "--json")
	if m := response(t, r).Machine; m == nil || m.State != wire.MachineShutoff {
		t.Fatalf("state after stop answered %v", r)
	}
	wantExit(t, d.dvv("machine", limb, "start"), wire.ExitUnsupported, wire.MachineRefused)
}

// TestMachineLibvirtStopAndStart: libvirt's hard stop shuts the domain off
// (virsh agrees), start boots it again, and the limb's screen comes back
// by itself.
func TestMachineLibvirtStopAndStart(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "tesseract")
	lv := testbed.StartLibvirtd(t)
	vnc := lv.DefineEcho(t, "echo-power", 64)
	shot := virshScreenshot(t, lv, "echo-power")
	d := startDaemon(t, "")
	limb := openMachine(t, d, vnc.Addr, "libvirt:echo-power?uri=qemu:///session&socket="+lv.Socket)
	waitGuestText(t, shot, "Booting from Hard", false)

	r := d.must("machine", limb, "stop", "--json")
	if m := response(t, r).Machine; m == nil || m.State != wire.MachineShutoff || !strings.Contains(m.Detail, "shut off") {
		t.Fatalf("stop answered %v", r)
	}
	if s := strings.TrimSpace(lv.Virsh(t, "domstate", "echo-power")); s != "shut off" {
		t.Fatalf("virsh says %q after stop", s)
	}
	r = d.must("machine", limb, "start", "--json")
	if m := response(t, r).Machine; m == nil || m.State != wire.MachineRunning {
		t.Fatalf("start answered %v", r)
	}
	waitGuestText(t, shot, "Booting from Hard", false)
	d.must("wait", limb, "--until", "connected", "--timeout-ms", "20000")
	d.must("control", "acquire", limb)
	d.must("screen", limb, "--out", filepath.Join(t.TempDir(), "a.png"))
	d.must("type", limb, "back")
	waitGuestText(t, shot, "back", false)
}

// TestMachineNeedsItsCapability: an agent whose token lacks
// machine.control (even an owner-role token) is refused every machine
// act, and the machine is untouched; one that names it may act.
func TestMachineNeedsItsCapability(t *testing.T) {
	t.Parallel()
	vm := testbed.StartQEMUMachine(t, 64)
	d := startDaemon(t, "")
	limb := openMachine(t, d, vm.Addr, "qmp:"+vm.QMP)
	owner := tokenFor(t, d, "--role", "owner")
	for _, act := range [][]string{{"state"}, {"pause"}, {"reset"}, {"stop"}, {"snapshot", "create", "s1"}, {"snapshot", "list"}} {
		r := d.as("agent", owner, append([]string{"machine", limb}, act...)...)
		wantExit(t, r, wire.ExitDenied, wire.PolicyDenied)
		if !strings.Contains(r.stderr, "machine.control") {
			t.Errorf("%v: the refusal does not name machine.control: %v", act, r)
		}
	}
	if r := d.must("machine", limb, "state", "--json"); response(t, r).Machine.State != wire.MachineRunning {
		t.Fatalf("a refused act changed the machine: %v", r)
	}
	named := tokenFor(t, d, "--role", "observer", "--cap", "machine.control")
	if r := d.as("agent2", named, "machine", limb, "pause"); r.code != 0 {
		t.Fatalf("a token naming machine.control was refused: %v", r)
	}
	if r := d.must("machine", limb, "state", "--json"); response(t, r).Machine.State != wire.MachinePaused {
		t.Fatalf("the allowed pause did not pause: %v", r)
	}
}

// TestMachineRefusalsAreCoded: a limb without a machine, a bad machine
// string and a bad snapshot name are refused with codes and next steps;
// dvvd stays up.
func TestMachineRefusalsAreCoded(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")
	_, limb := openVNC(t, d)
	r := d.dvv("machine", limb, "state")
	wantExit(t, r, wire.ExitUnsupported, wire.NoMachine)
	if !strings.Contains(r.stderr, "--machine") {
		t.Errorf("NO_MACHINE does not say how to name one: %v", r)
	}
	x := testbed.StartXvnc(t, testbed.XvncOptions{})
	wantExit(t, d.dvv("open", x.Addr, "--protocol", "vnc", "--machine", "qmp+ssh://u:secret@h/q.sock"), wire.ExitUsage, wire.BadRequest)
	vm := testbed.StartQEMUMachine(t, 64)
	m := openMachine(t, d, vm.Addr, "qmp:"+vm.QMP)
	wantExit(t, d.dvv("machine", m, "snapshot", "create", "a;quit"), wire.ExitUsage, wire.BadRequest)
	wantExit(t, d.dvv("machine", m, "snapshot", "restore", "nope"), wire.ExitGone, wire.NotFound)
	wantExit(t, d.dvv("machine", m, "start"), wire.ExitUnsupported, wire.MachineRefused)
	if r := d.must("machine", m, "state", "--json"); response(t, r).Machine.State != wire.MachineRunning {
		t.Fatalf("state after refusals: %v", r)
	}
	d.must("ping")
}

// TestMachineActInFlightDuringRestoreIsAnswered: a slow type sent while a
// restore starts, and one sent while it runs, are both answered (done, or
// refused by the fence the restore closed), never lost.
func TestMachineActInFlightDuringRestoreIsAnswered(t *testing.T) {
	t.Parallel()
	vm := testbed.StartQEMUMachine(t, 64)
	d := startDaemon(t, "")
	limb := openMachine(t, d, vm.Addr, "qmp:"+vm.QMP)
	d.must("machine", limb, "snapshot", "create", "s1")
	d.must("control", "acquire", limb)
	d.must("screen", limb, "--out", filepath.Join(t.TempDir(), "a.png"))
	var wg sync.WaitGroup
	results := make([]result, 2)
	wg.Add(1)
	go func() {
		defer wg.Done()
		results[0] = d.run("agent-slow", "", nil, "type", limb, "slowly typed", "--wpm", "60")
	}()
	time.Sleep(300 * time.Millisecond) // the slow type is under way
	restore := make(chan result, 1)
	go func() { restore <- d.dvv("machine", limb, "snapshot", "restore", "s1") }()
	wg.Add(1)
	go func() {
		defer wg.Done()
		time.Sleep(100 * time.Millisecond)
		results[1] = d.run("agent-late", "", nil, "key", limb, "Return")
	}()
	wg.Wait()
	if r := <-restore; r.code != 0 {
		t.Fatalf("restore: %v", r)
	}
	for i, r := range results {
		if r.code != 0 && !strings.Contains(r.stderr, "SCREEN_CHANGED") && !strings.Contains(r.stderr, "LEASE") {
			t.Errorf("act %d was not answered with its outcome: %v", i, r)
		}
	}
}

// qmpStatus is QEMU's run state as its own QMP socket says, on a
// connection of the test's.
func qmpStatus(t *testing.T, sock string) string {
	t.Helper()
	mon, err := qmp.NewSocketMonitor("unix", sock, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := mon.Connect(); err != nil {
		t.Fatal(err)
	}
	defer mon.Disconnect()
	out, err := mon.Run([]byte(`{"execute":"query-status"}`))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Return struct {
			Status string `json:"status"`
		} `json:"return"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	return r.Return.Status
}

// TestMachineQMPThroughSSH: qmp+ssh reaches the QMP socket through a real
// sshd with the user's own key and known_hosts (dvvd's HOME); pause,
// resume and a snapshot land on the QEMU behind it. An sshd whose host key
// is not trusted is HOSTKEY_UNKNOWN, and nothing is done.
func TestMachineQMPThroughSSH(t *testing.T) {
	t.Parallel()
	vm := testbed.StartQEMUMachine(t, 64)
	s := testbed.StartSSHD(t)
	d := startDaemonIn(t, "", s.Home)
	spec := fmt.Sprintf("qmp+ssh://%s@127.0.0.1:%d%s", s.User, s.Port, vm.QMP)
	limb := openMachine(t, d, vm.Addr, spec)
	r := d.must("machine", limb, "pause", "--json")
	if m := response(t, r).Machine; m == nil || m.State != wire.MachinePaused || m.Backend != "qmp+ssh" || m.Machine != spec {
		t.Fatalf("pause through SSH answered %v", r)
	}
	if st := qmpStatus(t, vm.QMP); st != "paused" {
		t.Fatalf("QEMU says %q after a pause through SSH", st)
	}
	d.must("machine", limb, "resume")
	if st := qmpStatus(t, vm.QMP); st != "running" {
		t.Fatalf("QEMU says %q after a resume through SSH", st)
	}
	d.must("machine", limb, "snapshot", "create", "over-ssh")
	out, err := exec.Command("qemu-img", "snapshot", "-U", "-l", vm.Disk).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "over-ssh") {
		t.Fatalf("qemu-img does not list the snapshot taken through SSH: %v: %s", err, out)
	}

	stranger := testbed.StartSSHD(t, testbed.SSHDUnknownHost())
	d2 := startDaemonIn(t, "", stranger.Home)
	limb2 := openMachine(t, d2, vm.Addr, fmt.Sprintf("qmp+ssh://%s@127.0.0.1:%d%s", stranger.User, stranger.Port, vm.QMP))
	wantExit(t, d2.dvv("machine", limb2, "pause"), wire.ExitTrust, wire.HostKeyUnknown)
	if st := qmpStatus(t, vm.QMP); st != "running" {
		t.Fatalf("QEMU says %q after a refused pause", st)
	}
}

// TestMachineLibvirtThroughSSH: libvirt's qemu+ssh URI reaches the daemon's
// socket through a real sshd with the user's key (socket= names where that
// daemon listens on the far side); virsh agrees with what was done.
func TestMachineLibvirtThroughSSH(t *testing.T) {
	t.Parallel()
	lv := testbed.StartLibvirtd(t)
	vnc := lv.DefineEcho(t, "echo-ssh", 64)
	s := testbed.StartSSHD(t)
	d := startDaemonIn(t, "", s.Home)
	spec := fmt.Sprintf("libvirt:echo-ssh?uri=qemu+ssh://%s@127.0.0.1:%d/session&socket=%s", s.User, s.Port, lv.Socket)
	limb := openMachine(t, d, vnc.Addr, spec)
	d.must("machine", limb, "pause")
	if st := strings.TrimSpace(lv.Virsh(t, "domstate", "echo-ssh")); st != "paused" {
		t.Fatalf("virsh says %q after a pause through SSH", st)
	}
	d.must("machine", limb, "resume")
	if st := strings.TrimSpace(lv.Virsh(t, "domstate", "echo-ssh")); st != "running" {
		t.Fatalf("virsh says %q after a resume through SSH", st)
	}
}

// TestMachineFromASavedHost: a host saved with --machine opens as a limb
// that knows its machine; a malformed machine is refused when saving.
func TestMachineFromASavedHost(t *testing.T) {
	t.Parallel()
	vm := testbed.StartQEMUMachine(t, 64)
	d := startDaemon(t, "")
	wantExit(t, d.dvv("hosts", "add", "vm-bad", "--address", vm.Addr, "--protocol", "vnc", "--machine", "qmp:relative.sock"), wire.ExitUsage, wire.BadRequest)
	d.must("hosts", "add", "vm1", "--address", vm.Addr, "--protocol", "vnc", "--machine", "qmp:"+vm.QMP)
	r := d.must("open", "vm1", "--perceive")
	limb := strings.TrimSpace(r.stdout)
	d.must("wait", limb, "--until", "connected", "--timeout-ms", "15000")
	r = d.must("machine", limb, "state", "--json")
	if m := response(t, r).Machine; m == nil || m.State != wire.MachineRunning || m.Machine != "qmp:"+vm.QMP {
		t.Fatalf("state of a saved host's machine answered %v", r)
	}
}

func sameFile(t *testing.T, a, b string) bool {
	t.Helper()
	x, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(x, y)
}

// samePNGPixels compares two PNGs' pixels (not their bytes: an encoder
// may choose differently for the same picture).
func samePNGPixels(t *testing.T, a, b string) bool {
	t.Helper()
	dec := func(p string) image.Image {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		return img
	}
	x, y := dec(a), dec(b)
	if x.Bounds() != y.Bounds() {
		return false
	}
	for py := x.Bounds().Min.Y; py < x.Bounds().Max.Y; py++ {
		for px := x.Bounds().Min.X; px < x.Bounds().Max.X; px++ {
			r1, g1, b1, _ := x.At(px, py).RGBA()
			r2, g2, b2, _ := y.At(px, py).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 {
				return false
			}
		}
	}
	return true
}
