package wire

// OpSubscribe is op subscribe's name on the wire.
const OpSubscribe = "subscribe"

// subscribeOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_subscribe_gen.go).
func subscribeOp() OpSpec {
	return OpSpec{Name: OpSubscribe, Answers: answers(), ReadOnly: true, Fields: []Field{fld("events")},
		Answer: "then `event` lines: limb.state, lease, op.start, op.end with seq and µs time; each change once (acquiring a lease already held emits nothing; closing a limb whose lease is held emits lease released before limb.state closed)"}
}
