package wire

// OpReconnect is op reconnect's name on the wire.
const OpReconnect = "reconnect"

// ReconnectArgs are the arguments of op reconnect.
type ReconnectArgs struct {
	Envelope
	Target
	// How long to wait for the limb to come back; default 20000.
	// note: 20000, clamped to 60000
	TimeoutMs *int `json:"timeoutMs,omitempty" dvv:"min=0"`
}

// ReconnectAnswer is what a success of op reconnect carries.
type ReconnectAnswer struct {
	LimbID      string       `json:"limbId,omitempty"`
	Observation *Observation `json:"observation,omitempty"`
}

// reconnectOp is what a client needs to know of op reconnect beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from ReconnectArgs and
// ReconnectAnswer (op_reconnect_gen.go).
func reconnectOp() OpSpec {
	return OpSpec{
		Name:   OpReconnect,
		Limb:   true,
		Caps:   []string{"limbs.open"},
		Raises: codes(Timeout, AuthFailed, Unreachable, ProtocolError, HostKeyUnknown, HostKeyChanged, Unsupported, NotConnected, LeaseRevoked),
		Answer: "`observation` once connected again; the last error's code when it failed; `LEASE_REVOKED` while a person holds the limb",
	}
}
