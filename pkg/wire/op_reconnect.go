package wire

// OpReconnect is op reconnect's name on the wire.
const OpReconnect = "reconnect"

// reconnectOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_reconnect_gen.go).
func reconnectOp() OpSpec {
	return OpSpec{Name: OpReconnect, Answers: answers("observation"), Limb: true, Caps: []string{"limbs.open"},
		Fields: limbFields(fld("timeoutMs", atLeast(0), note("20000, clamped to 60000"))),
		Raises: codes(Timeout, AuthFailed, Unreachable, ProtocolError, HostKeyUnknown, HostKeyChanged, Unsupported, NotConnected, LeaseRevoked),
		Answer: "`observation` once connected again; the last error's code when it failed; `LEASE_REVOKED` while a person holds the limb"}
}
