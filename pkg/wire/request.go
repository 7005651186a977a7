// Package wire holds dvv's socket protocol: op names, the request and answer
// shapes, the observation schema and the error codes. It has no logic.
//
// Framing: one JSON object per line, UTF-8, both ways. Requests are tagged
// "op", answers "result" (the op's name on success, "error" on failure, "event"
// for subscription events). A request's optional "id" is echoed.
package wire

// MaxLine is the longest request line dvvd reads (a files put with inline
// content must fit). Longer lines are answered BAD_REQUEST and skipped.
const MaxLine = 32 << 20

// ProtocolVersion is reported by hello.
const ProtocolVersion = 1

// Region is a rectangle in native framebuffer pixels.
type Region struct {
	X int `json:"x"`
	Y int `json:"y"`
	W int `json:"w"`
	H int `json:"h"`
}

// HostSpec describes a saved machine (host_add).
type HostSpec struct {
	Name     string `json:"name"`
	Protocol string `json:"protocol"`
	Address  string `json:"address"`
	Port     int    `json:"port,omitempty"`
	User     string `json:"user,omitempty"`
	Domain   string `json:"domain,omitempty"`
	SSHPort  int    `json:"sshPort,omitempty"`
	SSHUser  string `json:"sshUser,omitempty"`
	// Record: every session opened by this host is recorded (record op).
	Record bool `json:"record,omitempty"`
	// Machine is the host's hypervisor side (docs/machines.md): qmp:PATH,
	// qmp+ssh://user@host/PATH or libvirt:DOMAIN[?uri=…]; never a secret.
	Machine string `json:"machine,omitempty"`
}
