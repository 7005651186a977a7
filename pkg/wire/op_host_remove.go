package wire

// OpHostRemove is op host_remove's name on the wire.
const OpHostRemove = "host_remove"

// hostRemoveOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_host_remove_gen.go).
func hostRemoveOp() OpSpec {
	return OpSpec{Name: OpHostRemove, NameMeans: "HostName", Answers: answers("hosts"), Caps: []string{"hosts.write"}, Fields: []Field{fld("hostId", note("or the envelope's `name`"))},
		Raises: codes(NotFound, KeychainMissing, Unsupported), Answer: "`hosts`; the keychain item is deleted too"}
}
