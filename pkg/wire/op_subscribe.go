package wire

// OpSubscribe is op subscribe's name on the wire.
const OpSubscribe = "subscribe"

// SubscribeArgs are the arguments of op subscribe.
type SubscribeArgs struct {
	Envelope
	Events []string `json:"events,omitempty"`
}

// SubscribeAnswer is what a success of op subscribe carries.
type SubscribeAnswer struct{}

// subscribeOp is what a client needs to know of op subscribe beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from SubscribeArgs and
// SubscribeAnswer (op_subscribe_gen.go).
func subscribeOp() OpSpec {
	return OpSpec{
		Name:     OpSubscribe,
		ReadOnly: true,
		Answer:   "then `event` lines: limb.state, lease, op.start, op.end with seq and µs time; each change once (acquiring a lease already held emits nothing; closing a limb whose lease is held emits lease released before limb.state closed)",
	}
}
