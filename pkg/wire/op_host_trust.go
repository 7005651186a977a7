package wire

// OpHostTrust is op host_trust's name on the wire.
const OpHostTrust = "host_trust"

// HostTrustArgs are the arguments of op host_trust.
type HostTrustArgs struct {
	Envelope
	// The machine to trust: a host name or IP address (with port and
	// protocol), or hostId.
	Address string `json:"address,omitempty"`
	// A saved host (its name or id, as hosts lists it): its own protocol,
	// address and port are trusted. Give it instead of address.
	HostID      string `json:"hostId,omitempty"`
	Port        *int   `json:"port,omitempty" dvv:"min=1,max=65535"`
	Protocol    string `json:"protocol,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	AcceptNew   bool   `json:"acceptNew,omitempty"`
}

// HostTrustAnswer is what a success of op host_trust carries.
type HostTrustAnswer struct {
	Dispatched string `json:"dispatched,omitempty"`
}

// hostTrustOp is what a client needs to know of op host_trust beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from HostTrustArgs and
// HostTrustAnswer (op_host_trust_gen.go).
func hostTrustOp() OpSpec {
	return OpSpec{
		Name:   OpHostTrust,
		Caps:   []string{"hosts.write"},
		Raises: codes(Unreachable, Unsupported, HostKeyUnknown, HostKeyChanged, Timeout, NotFound),
		Answer: "`dispatched` with the trusted fingerprint. Without `fingerprint` or `acceptNew` nothing is written: HOSTKEY_UNKNOWN shows the presented fingerprint; a `fingerprint` the server does not present is HOSTKEY_CHANGED",
	}
}
