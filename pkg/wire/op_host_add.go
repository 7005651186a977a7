package wire

// OpHostAdd is op host_add's name on the wire.
const OpHostAdd = "host_add"

// HostAddArgs are the arguments of op host_add.
type HostAddArgs struct {
	Envelope
	// note: {name, protocol, address, port, user, domain, sshPort, sshUser, record, machine}
	Host HostSpec `json:"host,omitzero" dvv:"required" need:"{name, protocol, address, …}"`
	// note: to the keychain; when no keychain answers, to the credentials file
	// ~/.config/dvv/credentials (mode 0600), and `dispatched` says so
	Password string `json:"password,omitempty"`
}

// HostAddAnswer is what a success of op host_add carries.
type HostAddAnswer struct {
	Dispatched string `json:"dispatched,omitempty"`
	Hosts      []Host `json:"hosts,omitzero"`
}

// hostAddOp is what a client needs to know of op host_add beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from HostAddArgs and
// HostAddAnswer (op_host_add_gen.go).
func hostAddOp() OpSpec {
	return OpSpec{
		Name:   OpHostAdd,
		Caps:   []string{"hosts.write"},
		Raises: codes(KeychainMissing, Unsupported),
		Answer: "`hosts`; `dispatched`: where the password went (the keychain, or the credentials file when no keychain answered)",
	}
}
