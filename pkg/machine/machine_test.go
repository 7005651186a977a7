package machine

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

func TestParseMachineStrings(t *testing.T) {
	good := map[string]string{
		"qmp:/run/vm/qmp.sock":                                     "qmp:/run/vm/qmp.sock",
		"qmp+ssh://ops@hv.example:2222/run/vm/qmp.sock":            "qmp+ssh://ops@hv.example:2222/run/vm/qmp.sock",
		"libvirt:win11":                                            "libvirt:win11?uri=qemu:///system",
		"libvirt:win11?uri=qemu:///session":                        "libvirt:win11?uri=qemu:///session",
		"libvirt:win11?uri=qemu+ssh://ops@hv/system":               "libvirt:win11?uri=qemu+ssh://ops@hv/system",
		"libvirt:w?uri=qemu:///session&socket=/tmp/x/libvirt-sock": "libvirt:w?uri=qemu:///session&socket=/tmp/x/libvirt-sock",
	}
	for in, want := range good {
		s, err := Parse(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if s.String() != want {
			t.Errorf("%s: read back as %s, want %s", in, s, want)
		}
	}
	for _, in := range []string{"", "qmp:relative.sock", "qmp+ssh://ops:secret@hv/run/q.sock", "libvirt:", "libvirt:a?uri=qemu+tcp://hv/system",
		"libvirt:a?uri=qemu://hv/system", "libvirt:a?password=x", "vbox:thing", "qmp:/a\nb", "libvirt:a?uri=qemu:///elsewhere"} {
		_, err := Parse(in)
		var we *wire.Error
		if !errors.As(err, &we) || we.Code != wire.BadRequest || we.Next == "" {
			t.Errorf("%q: want BAD_REQUEST with a next step, got %v", in, err)
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("%q: the refusal repeats the password: %v", in, err)
		}
	}
}

func TestSnapshotNamesCannotCarryMonitorCommands(t *testing.T) {
	for _, n := range []string{"s1 ; quit", "a b", "", ".hidden", strings.Repeat("x", 65), "x\nquit", "-rf"} {
		if n == "-rf" {
			if err := CheckSnapshotName(n); err != nil {
				t.Errorf("%q is a plain name: %v", n, err)
			}
			continue
		}
		if err := CheckSnapshotName(n); err == nil {
			t.Errorf("%q was accepted", n)
		}
	}
}

// snapshotsOnDisk is qemu-img's own list of the disk's snapshots, read
// beside the running QEMU (-U: without taking its lock).
func snapshotsOnDisk(t *testing.T, disk string) string {
	t.Helper()
	out, err := exec.Command("qemu-img", "snapshot", "-U", "-l", disk).CombinedOutput()
	if err != nil {
		t.Fatalf("qemu-img snapshot -l: %v: %s", err, out)
	}
	return string(out)
}

// do runs one act on its own connection, closed after it (a QMP socket
// admits one client at a time, as dvvd connects per act).
func do[T any](t *testing.T, s string, act func(Machine) (T, error)) (T, error) {
	t.Helper()
	sp, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := Open(ctx, sp, nil)
	if err != nil {
		var zero T
		return zero, err
	}
	defer m.Close()
	return act(m)
}

func act(t *testing.T, s string, fn func(Machine) error) error {
	t.Helper()
	_, err := do(t, s, func(m Machine) (struct{}, error) { return struct{}{}, fn(m) })
	return err
}

func wantState(t *testing.T, s string, want string) {
	t.Helper()
	st, err := do(t, s, func(m Machine) (wire.MachineState, error) { return m.State(context.Background()) })
	if err != nil {
		t.Fatal(err)
	}
	if st.State != want {
		t.Fatalf("state %+v, want %s", st, want)
	}
}

func TestQMPActsAndSnapshots(t *testing.T) {
	vm := testbed.StartQEMUMachine(t, 64)
	spec := "qmp:" + vm.QMP
	ctx := context.Background()
	wantState(t, spec, wire.MachineRunning)
	if err := act(t, spec, func(m Machine) error { return m.Pause(ctx) }); err != nil {
		t.Fatal(err)
	}
	wantState(t, spec, wire.MachinePaused)
	if err := act(t, spec, func(m Machine) error { return m.Resume(ctx) }); err != nil {
		t.Fatal(err)
	}
	wantState(t, spec, wire.MachineRunning)

	mem, err := do(t, spec, func(m Machine) (bool, error) { return m.SnapshotCreate(ctx, "clean-1") })
	if err != nil || !mem {
		t.Fatalf("create: memory %v, %v", mem, err)
	}
	if disk := snapshotsOnDisk(t, vm.Disk); !strings.Contains(disk, "clean-1") {
		t.Fatalf("qemu-img does not list the snapshot:\n%s", disk)
	}
	list, err := do(t, spec, func(m Machine) ([]wire.Snapshot, error) { return m.Snapshots(ctx) })
	if err != nil || len(list) != 1 || list[0].Name != "clean-1" || !list[0].Memory || list[0].CreatedMs == 0 {
		t.Fatalf("list %+v, %v", list, err)
	}
	if err := act(t, spec, func(m Machine) error { return m.SnapshotRestore(ctx, "clean-1") }); err != nil {
		t.Fatal(err)
	}
	var we *wire.Error
	if err := act(t, spec, func(m Machine) error { return m.SnapshotRestore(ctx, "nope") }); !errors.As(err, &we) || we.Code != wire.NotFound {
		t.Fatalf("restore of a missing snapshot: %v", err)
	}
	if err := act(t, spec, func(m Machine) error { return m.SnapshotDelete(ctx, "clean-1") }); err != nil {
		t.Fatal(err)
	}
	if disk := snapshotsOnDisk(t, vm.Disk); strings.Contains(disk, "clean-1") {
		t.Fatalf("qemu-img still lists the deleted snapshot:\n%s", disk)
	}
	// The power button reaches a guest that ignores ACPI (the boot sector
	// has no ACPI code): QEMU accepts it and the machine keeps running.
	if err := act(t, spec, func(m Machine) error { return m.Power(ctx) }); err != nil {
		t.Fatal(err)
	}
	wantState(t, spec, wire.MachineRunning)
	if err := act(t, spec, func(m Machine) error { return m.Start(ctx) }); !errors.As(err, &we) || we.Code != wire.MachineRefused {
		t.Fatalf("start of a running machine: %v", err)
	}
	// A hard stop ends QEMU: the process exits and the machine reads as
	// shut off; start says why it cannot.
	if err := act(t, spec, func(m Machine) error { return m.Stop(ctx) }); err != nil {
		t.Fatal(err)
	}
	testbed.Eventually(t, 10*time.Second, "QEMU to exit", vm.Server.Exited)
	wantState(t, spec, wire.MachineShutoff)
	if err := act(t, spec, func(m Machine) error { return m.Start(ctx) }); !errors.As(err, &we) || we.Code != wire.MachineRefused || we.Next == "" {
		t.Fatalf("start after QEMU ended: %v", err)
	}
}

func TestLibvirtActsAndSnapshots(t *testing.T) {
	lv := testbed.StartLibvirtd(t)
	lv.DefineEcho(t, "echo-acts", 64)
	spec := "libvirt:echo-acts?uri=qemu:///session&socket=" + lv.Socket
	ctx := context.Background()
	virshState := func() string { return strings.TrimSpace(lv.Virsh(t, "domstate", "echo-acts")) }
	wantState(t, spec, wire.MachineRunning)
	if err := act(t, spec, func(m Machine) error { return m.Pause(ctx) }); err != nil {
		t.Fatal(err)
	}
	if s := virshState(); s != "paused" {
		t.Fatalf("virsh says %q after pause", s)
	}
	wantState(t, spec, wire.MachinePaused)
	if err := act(t, spec, func(m Machine) error { return m.Resume(ctx) }); err != nil {
		t.Fatal(err)
	}
	if s := virshState(); s != "running" {
		t.Fatalf("virsh says %q after resume", s)
	}
	mem, err := do(t, spec, func(m Machine) (bool, error) { return m.SnapshotCreate(ctx, "clean-1") })
	if err != nil || !mem {
		t.Fatalf("create: memory %v, %v", mem, err)
	}
	if out := lv.Virsh(t, "snapshot-list", "echo-acts", "--name"); !strings.Contains(out, "clean-1") {
		t.Fatalf("virsh does not list the snapshot: %s", out)
	}
	list, err := do(t, spec, func(m Machine) ([]wire.Snapshot, error) { return m.Snapshots(ctx) })
	if err != nil || len(list) != 1 || list[0].Name != "clean-1" || !list[0].Memory || list[0].State != "running" {
		t.Fatalf("list %+v, %v", list, err)
	}
	if err := act(t, spec, func(m Machine) error { return m.SnapshotRestore(ctx, "clean-1") }); err != nil {
		t.Fatal(err)
	}
	var we *wire.Error
	if err := act(t, spec, func(m Machine) error { return m.SnapshotDelete(ctx, "nope") }); !errors.As(err, &we) || we.Code != wire.NotFound {
		t.Fatalf("delete of a missing snapshot: %v", err)
	}
	if err := act(t, spec, func(m Machine) error { return m.SnapshotDelete(ctx, "clean-1") }); err != nil {
		t.Fatal(err)
	}
	if out := lv.Virsh(t, "snapshot-list", "echo-acts", "--name"); strings.Contains(out, "clean-1") {
		t.Fatalf("virsh still lists the snapshot: %s", out)
	}
	if err := act(t, spec, func(m Machine) error { return m.Stop(ctx) }); err != nil {
		t.Fatal(err)
	}
	if s := virshState(); s != "shut off" {
		t.Fatalf("virsh says %q after a hard stop", s)
	}
	wantState(t, spec, wire.MachineShutoff)
	if err := act(t, spec, func(m Machine) error { return m.Start(ctx) }); err != nil {
		t.Fatal(err)
	}
	if s := virshState(); s != "running" {
		t.Fatalf("virsh says %q after start", s)
	}
	if err := act(t, "libvirt:nosuch?uri=qemu:///session&socket="+lv.Socket, func(m Machine) error { return m.Pause(ctx) }); err == nil {
		t.Fatal("a missing domain opened")
	}
}
