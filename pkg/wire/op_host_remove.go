package wire

// OpHostRemove is op host_remove's name on the wire.
const OpHostRemove = "host_remove"

// HostRemoveArgs are the arguments of op host_remove; without hostId, the
// envelope's Name names the host.
type HostRemoveArgs struct {
	Envelope
	// note: or the envelope's `name`
	HostID string `json:"hostId,omitempty"`
}

// HostRemoveAnswer is what a success of op host_remove carries.
type HostRemoveAnswer struct {
	Hosts []Host `json:"hosts,omitzero"`
}

// hostRemoveOp is what a client needs to know of op host_remove beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from HostRemoveArgs and
// HostRemoveAnswer (op_host_remove_gen.go).
func hostRemoveOp() OpSpec {
	return OpSpec{
		Name:   OpHostRemove,
		Caps:   []string{"hosts.write"},
		Raises: codes(NotFound, KeychainMissing, Unsupported),
		Answer: "`hosts`; the keychain item is deleted too",
	}
}
