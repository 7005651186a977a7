package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// machineActs are dvv machine's acts beside snapshot, in help order.
var machineActs = []string{"state", "pause", "resume", "power", "reset", "stop", "start"}

// snapshotActs are dvv machine L snapshot's acts.
var snapshotActs = []string{"create", "list", "restore", "delete"}

func machineCmd(e *env) *cobra.Command {
	var timeout duration
	cmd := &cobra.Command{
		Use:   "machine <limbId> " + strings.Join(machineActs, "|") + " | snapshot " + strings.Join(snapshotActs, "|") + " [NAME]",
		Short: "The limb's machine: its state, power, reset and snapshots (needs machine.control)",
		Long: "Acts on the hypervisor side of a limb opened or saved with --machine (qmp:, qmp+ssh:, libvirt:).\n" +
			"state answers the machine's state and the hypervisor's own words; pause and resume freeze and thaw it;\n" +
			"power presses the power button (the guest decides); reset restarts it at once; stop cuts the power;\n" +
			"start powers it on. snapshot create NAME takes a snapshot (with memory where the backend can),\n" +
			"snapshot list lists them, snapshot restore NAME puts the machine back, snapshot delete NAME removes one.\n" +
			"After reset and restore the limb's screen reconnects by itself: read the screen again before typing.",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usageErr("machine needs a limb id and an act (usage: %s)", cmd.UseLine())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := limbTarget(args[0])
			if err != nil {
				return err
			}
			var ms *int
			if timeout.set {
				ms = timeout.ms()
			}
			act, rest := args[1], args[2:]
			if act == "snapshot" {
				return e.snapshotAct(target, rest, ms)
			}
			if len(rest) > 0 {
				return usageErr("machine %s takes no further argument (got %q)", act, strings.Join(rest, " "))
			}
			return e.machineAct(target, act, ms)
		},
	}
	addDuration(cmd.Flags(), &timeout, "timeout", 20*time.Second, "reset and snapshot restore: how long to wait for the limb's screen to come back (dvvd clamps it to 60s)")
	return cmd
}

func (e *env) machineAct(t wire.Target, act string, timeoutMs *int) error {
	var st *wire.MachineState
	var obs *wire.Observation
	switch act {
	case "state":
		r, err := request(e, (*client.Client).MachineState, wire.MachineStateArgs{Target: t})
		if err != nil {
			return err
		}
		st = r.Machine
	case "pause":
		r, err := request(e, (*client.Client).MachinePause, wire.MachinePauseArgs{Target: t})
		if err != nil {
			return err
		}
		st = r.Machine
	case "resume":
		r, err := request(e, (*client.Client).MachineResume, wire.MachineResumeArgs{Target: t})
		if err != nil {
			return err
		}
		st = r.Machine
	case "power":
		r, err := request(e, (*client.Client).MachinePower, wire.MachinePowerArgs{Target: t})
		if err != nil {
			return err
		}
		st = r.Machine
	case "reset":
		r, err := request(e, (*client.Client).MachineReset, wire.MachineResetArgs{Target: t, TimeoutMs: timeoutMs})
		if err != nil {
			return err
		}
		st, obs = r.Machine, r.Observation
	case "stop":
		r, err := request(e, (*client.Client).MachineStop, wire.MachineStopArgs{Target: t})
		if err != nil {
			return err
		}
		st = r.Machine
	case "start":
		r, err := request(e, (*client.Client).MachineStart, wire.MachineStartArgs{Target: t})
		if err != nil {
			return err
		}
		st = r.Machine
	default:
		return usageErr("unknown machine act %q; the acts are %s, and snapshot %s", act, strings.Join(machineActs, ", "), strings.Join(snapshotActs, "|"))
	}
	if e.human() {
		e.printMachine(st)
		if obs != nil {
			printObservation(e.stdout, obs)
		}
	}
	return nil
}

func (e *env) printMachine(st *wire.MachineState) {
	if st == nil {
		return
	}
	fmt.Fprintf(e.stdout, "%s\t%s\t%s\n", st.State, oneLine(st.Detail), oneLine(st.Machine))
}

func (e *env) snapshotAct(t wire.Target, args []string, timeoutMs *int) error {
	if len(args) == 0 {
		return usageErr("machine snapshot needs an act: %s", strings.Join(snapshotActs, ", "))
	}
	act, rest := args[0], args[1:]
	name := ""
	switch {
	case act == "list" && len(rest) > 0:
		return usageErr("machine snapshot list takes no name")
	case act != "list" && len(rest) != 1:
		return usageErr("machine snapshot %s needs one snapshot name", act)
	case act != "list":
		name = rest[0]
	}
	switch act {
	case "create":
		r, err := request(e, (*client.Client).MachineSnapshotCreate, wire.MachineSnapshotCreateArgs{Target: t, Snapshot: name})
		if err != nil || !e.human() {
			return err
		}
		if r.Snapshot != nil {
			fmt.Fprintf(e.stdout, "snapshot %s taken (memory: %s)\n", r.Snapshot.Name, yesNo(r.Snapshot.Memory))
		}
	case "list":
		r, err := request(e, (*client.Client).MachineSnapshotList, wire.MachineSnapshotListArgs{Target: t})
		if err != nil || !e.human() {
			return err
		}
		e.printSnapshots(r.Snapshots)
	case "restore":
		r, err := request(e, (*client.Client).MachineSnapshotRestore, wire.MachineSnapshotRestoreArgs{Target: t, Snapshot: name, TimeoutMs: timeoutMs})
		if err != nil || !e.human() {
			return err
		}
		fmt.Fprintf(e.stdout, "restored %s\n", name)
		e.printMachine(r.Machine)
		if r.Observation != nil {
			printObservation(e.stdout, r.Observation)
		}
	case "delete":
		r, err := request(e, (*client.Client).MachineSnapshotDelete, wire.MachineSnapshotDeleteArgs{Target: t, Snapshot: name})
		if err != nil || !e.human() {
			return err
		}
		e.printSnapshots(r.Snapshots)
	default:
		return usageErr("unknown snapshot act %q; the acts are %s", act, strings.Join(snapshotActs, ", "))
	}
	return nil
}

func (e *env) printSnapshots(list []wire.Snapshot) {
	t := newTable(e.stdout, "NAME", "CREATED", "MEMORY", "STATE")
	for _, s := range list {
		created := "-"
		if s.CreatedMs > 0 {
			created = time.UnixMilli(s.CreatedMs).UTC().Format(time.RFC3339)
		}
		t.row(oneLine(s.Name), created, yesNo(s.Memory), orDash(s.State))
	}
	t.flush()
}
