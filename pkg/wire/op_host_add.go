package wire

// OpHostAdd is op host_add's name on the wire.
const OpHostAdd = "host_add"

// hostAddOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_host_add_gen.go).
func hostAddOp() OpSpec {
	return OpSpec{Name: OpHostAdd, Answers: answers("hosts", "dispatched"), Caps: []string{"hosts.write"}, Fields: []Field{fld("host", required("{name, protocol, address, …}"), note("{name, protocol, address, port, user, domain, sshPort, sshUser, record, machine}")), fld("password", note("to the keychain; when no keychain answers, to the credentials file ~/.config/dvv/credentials (mode 0600), and `dispatched` says so"))},
		Raises: codes(KeychainMissing, Unsupported), Answer: "`hosts`; `dispatched`: where the password went (the keychain, or the credentials file when no keychain answered)"}
}
