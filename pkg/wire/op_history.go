package wire

// OpHistory is op history's name on the wire.
const OpHistory = "history"

// HistoryArgs are the arguments of op history.
type HistoryArgs struct {
	Envelope
	Target
}

// HistoryAnswer is what a success of op history carries.
type HistoryAnswer struct {
	LimbID  string         `json:"limbId,omitempty"`
	History []HistoryEntry `json:"history,omitzero"`
}

// historyOp is what a client needs to know of op history beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from HistoryArgs and
// HistoryAnswer (op_history_gen.go).
func historyOp() OpSpec {
	return OpSpec{
		Name:      OpHistory,
		Limb:      true,
		Inline:    true,
		ReadOnly:  true,
		RetrySafe: true,
		Caps:      []string{"history.read"},
		Answer:    "`history`: the limb's last 128 ops — op, attachment, outcome code, timings; never text, pixels or secrets",
	}
}
