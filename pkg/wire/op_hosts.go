package wire

// OpHosts is op hosts's name on the wire.
const OpHosts = "hosts"

// hostsOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_hosts_gen.go).
func hostsOp() OpSpec {
	return OpSpec{Name: OpHosts, Answers: answers("hosts", "discovered", "discoveryNote"), Caps: []string{"hosts.read"}, ReadOnly: true, RetrySafe: true, Fields: []Field{fld("discovered")},
		Answer: "`hosts` (saved + ~/.ssh/config) with `hasCredential`; with `discovered`, also `discovered` + `discoveryNote`"}
}
