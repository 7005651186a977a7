package wire

// OpRecord is op record's name on the wire.
const OpRecord = "record"

// RecordArgs are the arguments of op record.
type RecordArgs struct {
	Envelope
	Target
	// start, stop, or list.
	Action string `json:"action,omitempty" dvv:"variant,enum=start|stop|list"`
}

// RecordAnswer is what a success of op record carries.
type RecordAnswer struct {
	LimbID     string      `json:"limbId,omitempty"`
	Recordings []Recording `json:"recordings,omitzero"`
}

// recordOp is what a client needs to know of op record beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from RecordArgs and
// RecordAnswer (op_record_gen.go).
func recordOp() OpSpec {
	return OpSpec{
		Name:   OpRecord,
		Limb:   true,
		Caps:   []string{"screen.read"},
		Raises: codes(NotReady, NotConnected, Busy),
		Answer: "`recordings`: limbId, format (asciicast-v2 or fbs), path, actsPath, startedMs, bytes, acts, active, ended; files 0600 under $XDG_STATE_HOME/dvv/recordings; `list` gives the limb's recordings on disk, newest first",
	}
}
