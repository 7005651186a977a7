package wire

// OpHealth is op health's name on the wire.
const OpHealth = "health"

// healthOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_health_gen.go).
func healthOp() OpSpec {
	return OpSpec{Name: OpHealth, Answers: answers("checks"), ReadOnly: true, RetrySafe: true, Caps: []string{"hosts.read"},
		Answer: "`checks`: dvvd's side of `dvv doctor` — keychain, mDNS, ssh-agent, ~/.ssh/config, each saved host reachable and trusted; each `ok`, `skip`, `warn` or `fail` with a fix"}
}
