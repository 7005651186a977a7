package wire

// OpHealth is op health's name on the wire.
const OpHealth = "health"

// HealthArgs are the arguments of op health.
type HealthArgs struct {
	Envelope
}

// HealthAnswer is what a success of op health carries.
type HealthAnswer struct {
	Checks []HealthCheck `json:"checks,omitzero"`
}

// healthOp is what a client needs to know of op health beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from HealthArgs and
// HealthAnswer (op_health_gen.go).
func healthOp() OpSpec {
	return OpSpec{
		Name:      OpHealth,
		ReadOnly:  true,
		RetrySafe: true,
		Caps:      []string{"hosts.read"},
		Answer:    "`checks`: dvvd's side of `dvv doctor` — keychain, mDNS, ssh-agent, ~/.ssh/config, each saved host reachable and trusted; each `ok`, `skip`, `warn` or `fail` with a fix",
	}
}
