package wire

// OpControl is op control's name on the wire.
const OpControl = "control"

// controlOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_control_gen.go).
func controlOp() OpSpec {
	return OpSpec{Name: OpControl, Answers: answers("lease", "observation", "dispatched"), Limb: true, Recorded: true, Variant: "action", Variants: []string{"acquire", "release", "status", "yield", "yield_status"},
		ActionCaps: map[string][]string{"acquire": {"control"}, "release": {"control"}, "yield": {"control"}, "status": {}, "yield_status": {}},
		Fields: limbFields(fld("action", required()), fld("reason", only("acquire", "release", "yield"), label(MaxReasonBytes)),
			fld("waitMs", only("acquire"), within(0, 600000), note("0 fails at once"))),
		Raises: codes(LeaseNotHeld, LeaseRevoked, Timeout),
		Answer: "`lease`, `observation`"}
}
