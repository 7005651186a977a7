package wire

// OpClose is op close's name on the wire.
const OpClose = "close"

// closeOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_close_gen.go).
func closeOp() OpSpec {
	return OpSpec{Name: OpClose, Answers: answers("dispatched"), Limb: true, GoneIsDone: true, Caps: []string{"limbs.open"}, Fields: []Field{fld("limbId", required())}, Raises: codes(LeaseRevoked),
		Answer: "`close`; idempotent (a gone limb is success); in-flight intents withdrawn first; `LEASE_REVOKED` while a person holds the limb"}
}
