package wire

// OpOpen is op open's name on the wire.
const OpOpen = "open"

// OpenArgs are the arguments of op open.
type OpenArgs struct {
	Envelope
	// A saved machine, from dvv_hosts.
	HostID string `json:"hostId,omitempty"`
	// Hostname or IP of a machine that is not saved.
	Address string `json:"address,omitempty"`
	// note: 5900 vnc, 3389 rdp, 22 ssh; for ssh the ~/.ssh/config Port of the host or alias
	// comes first; beside hostId it needs `hosts.write`
	Port *int `json:"port,omitempty" dvv:"min=1,max=65535"`
	// Needed with address; refused beside hostId.
	// note: needed with address, refused beside hostId
	Protocol string `json:"protocol,omitempty"`
	// 0 attaches to the live session; above 0 opens a fresh one (rdp, ssh).
	Slot *int `json:"slot,omitempty" dvv:"min=0"`
	// Keep a framebuffer mirror so dvv_screen has pixels to read.
	Perceive *bool `json:"perceive,omitempty"`
	// note: the hypervisor side of the machine, for the machine_* ops: qmp:PATH,
	// qmp+ssh://user@host/PATH or libvirt:DOMAIN[?uri=…] (docs/machines.md); beside hostId
	// it replaces the saved one for this limb
	Machine string `json:"machine,omitempty"`
	// note: the machine's password for this limb (instead of a saved one): kept in dvvd's
	// memory for reconnects only, never stored, logged, recorded or answered
	Password string `json:"password,omitempty"`
}

// OpenAnswer is what a success of op open carries.
type OpenAnswer struct {
	LimbID      string       `json:"limbId,omitempty"`
	Observation *Observation `json:"observation,omitempty"`
	Dispatched  string       `json:"dispatched,omitempty"`
}

// openOp is what a client needs to know of op open beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from OpenArgs and
// OpenAnswer (op_open_gen.go).
func openOp() OpSpec {
	return OpSpec{
		Name:   OpOpen,
		Caps:   []string{"limbs.open"},
		Raises: codes(SlotRefused, NotFound, HostKeyUnknown, HostKeyChanged, KeychainMissing, Unsupported, Busy),
		Answer: "`limbId`, `observation`; returns once the session task runs. Opening a saved host whose endpoint is already open applies its SSH sidecar to that limb; a different login is not switched under the live session, and `dispatched` says what was and was not applied",
	}
}
