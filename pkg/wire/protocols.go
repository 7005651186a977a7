package wire

import (
	"strconv"
	"strings"
)

// Limb kinds: a desktop (framebuffer, pointer, keys) or a terminal (a shell
// session with a PTY).
const (
	KindDesktop  = "desktop"
	KindTerminal = "terminal"
)

// ProtocolSpec is what dvv knows of one remote protocol. Every whitelist,
// default port, slot rule, discovery browse and help text reads this
// table; a new protocol is its client package, its limb adapter and one
// entry here.
type ProtocolSpec struct {
	Name        string
	Kind        string // KindDesktop or KindTerminal
	DefaultPort int
	// Slots: the server gives concurrent sessions, so slot > 0 opens a
	// fresh one; without, slot > 0 is SLOT_REFUSED.
	Slots bool
	// Service is the DNS-SD service type discovery browses for it.
	Service string
}

// Protocols is the protocol table, in documentation order.
var Protocols = []ProtocolSpec{
	{Name: ProtoVNC, Kind: KindDesktop, DefaultPort: 5900, Slots: false, Service: "_rfb._tcp"},
	{Name: ProtoRDP, Kind: KindDesktop, DefaultPort: 3389, Slots: true, Service: "_rdp._tcp"},
	{Name: ProtoSSH, Kind: KindTerminal, DefaultPort: 22, Slots: true, Service: "_ssh._tcp"},
}

// Protocol returns the spec of a protocol by name.
func Protocol(name string) (*ProtocolSpec, bool) {
	for i := range Protocols {
		if Protocols[i].Name == name {
			return &Protocols[i], true
		}
	}
	return nil, false
}

// ProtocolNames lists the protocols' names.
func ProtocolNames() []string {
	out := make([]string, len(Protocols))
	for i, p := range Protocols {
		out[i] = p.Name
	}
	return out
}

// ProtocolChoice is the names for a message: "vnc, rdp or ssh".
func ProtocolChoice() string { return orList(ProtocolNames()) }

// DefaultPorts is the default ports for help text: "5900 vnc, 3389 rdp, 22 ssh".
func DefaultPorts() string {
	parts := make([]string, len(Protocols))
	for i, p := range Protocols {
		parts[i] = strconv.Itoa(p.DefaultPort) + " " + p.Name
	}
	return strings.Join(parts, ", ")
}

// KindOf is the kind of a protocol's limbs, "" for an unknown protocol.
func KindOf(name string) string {
	if p, ok := Protocol(name); ok {
		return p.Kind
	}
	return ""
}

// ProtocolsOfKind lists the protocols whose limbs are of that kind.
func ProtocolsOfKind(kind string) []string {
	var out []string
	for _, p := range Protocols {
		if p.Kind == kind {
			out = append(out, p.Name)
		}
	}
	return out
}
