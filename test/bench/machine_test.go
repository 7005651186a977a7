//go:build bench

package bench

import (
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestMachineSnapshots measures taking and restoring a snapshot with
// memory of a 256 MiB guest (the echoing boot sector, under TCG) through
// dvvd, beside virsh doing the same to the same libvirt domain, in one run
// and in turns so both meet the same disk and load. dvvd's restore answers
// once the limb's screen is back (a fresh VNC session), virsh's when
// libvirt is done; the table also gives the QMP backend on a QEMU of its own.
func TestMachineSnapshots(t *testing.T) {
	const rounds = 5
	lv := testbed.StartLibvirtd(t)
	vnc := lv.DefineEcho(t, "bench-snap", 256)
	vm := testbed.StartQEMUMachine(t, 256)
	d := startDvvd(t)
	c := d.dial(t)
	open := func(port int, machine string) wire.Target {
		p, perceive := port, true
		r := must(t, c, wire.OpenArgs{Address: "127.0.0.1", Port: &p, Protocol: "vnc", Perceive: &perceive, Machine: machine})
		to := 20000
		must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: &to})
		return wire.Target{LimbID: r.LimbID}
	}
	lvLimb := open(vnc.Port, "libvirt:bench-snap?uri=qemu:///session&socket="+lv.Socket)
	qmpLimb := open(vm.Port, "qmp:"+vm.QMP)
	time.Sleep(3 * time.Second) // both guests past SeaBIOS, echoing

	virsh := func(args ...string) {
		if out, err := exec.Command("virsh", append([]string{"-c", lv.URI}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("virsh %v: %v: %s", args, err, out)
		}
	}
	var dvvCreate, dvvRestore, virshCreate, virshRevert, qmpCreate, qmpRestore durations
	for i := 0; i < rounds; i++ {
		name := fmt.Sprintf("d%d", i)
		dvvCreate = append(dvvCreate, timeN(1, func() { must(t, c, wire.MachineSnapshotCreateArgs{Target: lvLimb, Snapshot: name}) })...)
		dvvRestore = append(dvvRestore, timeN(1, func() { must(t, c, wire.MachineSnapshotRestoreArgs{Target: lvLimb, Snapshot: name}) })...)
		vname := fmt.Sprintf("v%d", i)
		virshCreate = append(virshCreate, timeN(1, func() { virsh("snapshot-create-as", "bench-snap", vname) })...)
		virshRevert = append(virshRevert, timeN(1, func() { virsh("snapshot-revert", "bench-snap", vname) })...)
		qmpCreate = append(qmpCreate, timeN(1, func() { must(t, c, wire.MachineSnapshotCreateArgs{Target: qmpLimb, Snapshot: name}) })...)
		qmpRestore = append(qmpRestore, timeN(1, func() { must(t, c, wire.MachineSnapshotRestoreArgs{Target: qmpLimb, Snapshot: name}) })...)
	}
	row := func(what string, ds durations) string {
		return fmt.Sprintf("| %s | %s | %s | %s |", what, ms(ds.pct(0)), ms(ds.pct(0.5)), ms(ds.pct(1)))
	}
	report(t, fmt.Sprintf("snapshots with memory of a 256 MiB guest (TCG, qcow2 internal snapshots), %d rounds in turns, one run", rounds),
		"| what | min | median | max |", "| --- | --- | --- | --- |",
		row("`virsh snapshot-create-as` (libvirt)", virshCreate),
		row("dvvd `machine_snapshot_create`, libvirt backend", dvvCreate),
		row("`virsh snapshot-revert` (libvirt)", virshRevert),
		row("dvvd `machine_snapshot_restore`, libvirt backend, answered once the limb's screen is back", dvvRestore),
		row("dvvd `machine_snapshot_create`, QMP backend (savevm)", qmpCreate),
		row("dvvd `machine_snapshot_restore`, QMP backend (loadvm), answered once the limb's screen is back", qmpRestore))
}
