package wire

// Machine states: what the hypervisor says of a limb's machine, in dvv's
// words (MachineState.State); Detail keeps the hypervisor's own.
const (
	MachineRunning   = "running"
	MachinePaused    = "paused"
	MachineShutoff   = "shutoff"
	MachineSuspended = "suspended" // the guest put itself to sleep (ACPI S3)
	MachineCrashed   = "crashed"
	MachineOther     = "other" // a state of the hypervisor's with no dvv word (migrating, …); Detail says which
)

// MachineState is a limb's machine as its hypervisor reports it.
type MachineState struct {
	State string `json:"state"`
	// Detail is the hypervisor's own word for it (QMP's run state, or
	// libvirt's state and reason).
	Detail string `json:"detail,omitempty"`
	// Backend is qmp, qmp+ssh or libvirt; Machine the limb's machine as
	// given, with nothing secret in it.
	Backend string `json:"backend"`
	Machine string `json:"machine"`
}

// Snapshot is one snapshot of a limb's machine.
type Snapshot struct {
	Name string `json:"name"`
	// CreatedMs is when it was taken (unix milliseconds; 0 unknown).
	CreatedMs int64 `json:"createdMs,omitempty"`
	// Memory: the snapshot holds the running machine's memory, so a
	// restore resumes the guest where it was instead of booting it.
	Memory bool `json:"memory"`
	// State is the machine's state when it was taken (libvirt's word).
	State string `json:"state,omitempty"`
}

// MachineEvent is the last thing done to a limb's machine through dvv that
// changed what its screen shows (a restore, a reset, a start): the
// observation carries it so an agent learns why its fence armed.
type MachineEvent struct {
	Act      string `json:"act"` // restore, reset, start, power, stop
	Snapshot string `json:"snapshot,omitempty"`
	AtMs     int64  `json:"atMs"`
	// Generation is the geometry generation the act started: coordinates
	// read before it are refused (GEOMETRY_CHANGED).
	Generation uint64 `json:"generation,omitempty"`
}
