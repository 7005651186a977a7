package wire

// OpRecord is op record's name on the wire.
const OpRecord = "record"

// recordOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_record_gen.go).
func recordOp() OpSpec {
	return OpSpec{Name: OpRecord, Answers: answers("recordings"), Limb: true, Caps: []string{"screen.read"}, Variant: "action", Variants: []string{"start", "stop", "list"},
		Fields: limbFields(fld("action")), Raises: codes(NotReady, NotConnected, Busy),
		Answer: "`recordings`: limbId, format (asciicast-v2 or fbs), path, actsPath, startedMs, bytes, acts, active, ended; files 0600 under $XDG_STATE_HOME/dvv/recordings; `list` gives the limb's recordings on disk, newest first"}
}
