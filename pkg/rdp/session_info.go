package rdp

// Negotiated is what a session agreed with its server, for diagnostics
// (signals, bug reports): the security protocol, and from the server's
// capability sets the colour depth and output path.
type Negotiated struct {
	Security       string // "SSL" (TLS), "HYBRID" (CredSSP/NLA), "HYBRID_EX"
	ColorDepth     int    // server's preferred bits per pixel; 0 before activation
	FastPathOutput bool
	LargePointer   bool
	MultiFragment  uint32 // largest fast-path update the server may send
}

// Negotiated reports the session's agreed parameters so far.
func (c *Client) Negotiated() Negotiated {
	n := Negotiated{Security: protocolName(c.protocol)}
	if sc := c.caps.Load(); sc != nil {
		n.ColorDepth, n.FastPathOutput, n.LargePointer, n.MultiFragment = sc.BPP, sc.FastPathOutput, sc.LargePointer, sc.MultiFragment
	}
	return n
}

func protocolName(p uint32) string {
	switch p {
	case ProtocolRDP:
		return "RDP"
	case ProtocolSSL:
		return "SSL"
	case ProtocolHybrid:
		return "HYBRID"
	case ProtocolHybridEx:
		return "HYBRID_EX"
	case ProtocolRDSTLS:
		return "RDSTLS"
	case ProtocolRDSAAD:
		return "RDSAAD"
	}
	return "unknown"
}
