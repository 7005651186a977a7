package wire

// OpHosts is op hosts's name on the wire.
const OpHosts = "hosts"

// HostsArgs are the arguments of op hosts.
type HostsArgs struct {
	Envelope
	// true to list what discovery (mDNS) has seen as well.
	Discovered bool `json:"discovered,omitempty"`
}

// HostsAnswer is what a success of op hosts carries.
type HostsAnswer struct {
	Hosts         []Host `json:"hosts,omitzero"`
	Discovered    []Host `json:"discovered,omitzero"`
	DiscoveryNote string `json:"discoveryNote,omitempty"`
}

// hostsOp is what a client needs to know of op hosts beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from HostsArgs and
// HostsAnswer (op_hosts_gen.go).
func hostsOp() OpSpec {
	return OpSpec{
		Name:      OpHosts,
		Caps:      []string{"hosts.read"},
		ReadOnly:  true,
		RetrySafe: true,
		Answer:    "`hosts` (saved + ~/.ssh/config) with `hasCredential`; with `discovered`, also `discovered` + `discoveryNote`",
	}
}
