package wire

// OpOpen is op open's name on the wire.
const OpOpen = "open"

// openOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_open_gen.go).
func openOp() OpSpec {
	return OpSpec{Name: OpOpen, Answers: answers("limbId", "observation", "dispatched"), Caps: []string{"limbs.open"},
		Fields: []Field{fld("hostId"), fld("address"), fld("port", within(1, 65535), note(DefaultPorts()+"; for ssh the ~/.ssh/config Port of the host or alias comes first; beside hostId it needs `hosts.write`")),
			fld("protocol", note("needed with address, refused beside hostId")), fld("slot", atLeast(0)), fld("perceive"),
			fld("machine", note("the hypervisor side of the machine, for the machine_* ops: qmp:PATH, qmp+ssh://user@host/PATH or libvirt:DOMAIN[?uri=…] (docs/machines.md); beside hostId it replaces the saved one for this limb")),
			fld("password", note("the machine's password for this limb (instead of a saved one): kept in dvvd's memory for reconnects only, never stored, logged, recorded or answered"))},
		Raises: codes(SlotRefused, NotFound, HostKeyUnknown, HostKeyChanged, KeychainMissing, Unsupported, Busy),
		Answer: "`limbId`, `observation`; returns once the session task runs. Opening a saved host whose endpoint is already open applies its SSH sidecar to that limb; a different login is not switched under the live session, and `dispatched` says what was and was not applied"}
}
