package wire

// OpHostTrust is op host_trust's name on the wire.
const OpHostTrust = "host_trust"

// hostTrustOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_host_trust_gen.go).
func hostTrustOp() OpSpec {
	return OpSpec{Name: OpHostTrust, Answers: answers("dispatched"), Caps: []string{"hosts.write"},
		Fields: []Field{fld("address", required("and port, protocol")), fld("port", within(1, 65535)), fld("protocol"), fld("fingerprint"), fld("acceptNew")},
		Raises: codes(Unreachable, Unsupported, HostKeyUnknown, HostKeyChanged, Timeout),
		Answer: "`dispatched` with the trusted fingerprint. Without `fingerprint` or `acceptNew` nothing is written: HOSTKEY_UNKNOWN shows the presented fingerprint; a `fingerprint` the server does not present is HOSTKEY_CHANGED"}
}
