package rfb

import (
	"bufio"
	"fmt"
	"net"
)

// handshake runs the protocol version, security and initialisation phases.
// It may replace the connection (VeNCrypt upgrades it to TLS).
type handshake struct {
	conn          net.Conn
	raw           net.Conn // the connection under TLS, when conn was upgraded
	r             *reader
	cfg           *Config
	minor         int // 3, 7 or 8
	avoidVeNCrypt bool

	security string
	width    int
	height   int
	name     string
	apple    bool
	offered  []byte // security types the server listed
}

const bufSize = 64 << 10

func newHandshake(conn net.Conn, cfg *Config) *handshake {
	return &handshake{conn: conn, raw: conn, cfg: cfg, r: newReader(bufio.NewReaderSize(conn, bufSize))}
}

func (h *handshake) write(b []byte) error {
	_, err := h.conn.Write(b)
	return err
}

// reason reads a U32-length string sent with a refusal.
func (h *handshake) reason() string {
	n := h.r.u32()
	if h.r.err != nil {
		return ""
	}
	if n > maxReasonLen {
		h.r.fail(protoErr("reason string of %d bytes", n))
		return ""
	}
	return string(h.r.bytes(int(n)))
}

func (h *handshake) run() error {
	if err := h.version(); err != nil {
		return err
	}
	if err := h.securityPhase(); err != nil {
		return err
	}
	shared := byte(0)
	if h.cfg.Shared {
		shared = 1
	}
	if err := h.write([]byte{shared}); err != nil {
		return err
	}
	return h.serverInit()
}

func (h *handshake) version() error {
	b := h.r.bytes(12)
	if h.r.err != nil {
		return h.r.err
	}
	var major, minor int
	if n, _ := fmt.Sscanf(string(b), "RFB %03d.%03d\n", &major, &minor); n != 2 || major != 3 || b[11] != '\n' {
		return protoErr("not an RFB server (greeting %q)", b)
	}
	switch {
	case minor >= 8:
		h.minor = 8
		h.apple = minor == 889 // macOS Screen Sharing announces 3.889
	case minor == 7:
		h.minor = 7
	default:
		h.minor = 3 // 3.3, and 3.5 as the spec says
	}
	return h.write(fmt.Appendf(nil, "RFB 003.%03d\n", h.minor))
}

func (h *handshake) securityPhase() error {
	r := h.r
	var chosen byte
	if h.minor == 3 {
		t := r.u32()
		if r.err != nil {
			return r.err
		}
		switch t {
		case secInvalid:
			reason := h.reason()
			if r.err != nil {
				return r.err
			}
			return &ServerError{Reason: reason}
		case secNone, secVNCAuth:
			chosen = byte(t)
		default:
			return &UnsupportedSecurityError{Offered: []string{SecurityName(t)}}
		}
		h.offered = []byte{chosen}
		if chosen == secVNCAuth && h.cfg.Password == "" {
			return &AuthError{Reason: "the server requires a VNC password and none was given"}
		}
	} else {
		n := int(r.u8())
		if r.err != nil {
			return r.err
		}
		if n == 0 {
			reason := h.reason()
			if r.err != nil {
				return r.err
			}
			return &ServerError{Reason: reason}
		}
		h.offered = append([]byte(nil), r.bytes(n)...)
		if r.err != nil {
			return r.err
		}
		var err error
		if chosen, err = chooseSecurity(h.offered, h.cfg, h.avoidVeNCrypt); err != nil {
			return err
		}
		if err := h.write([]byte{chosen}); err != nil {
			return err
		}
	}
	h.security = SecurityName(uint32(chosen))
	needResult := h.minor == 8
	switch chosen {
	case secNone:
	case secVNCAuth:
		if err := h.vncAuth(); err != nil {
			return err
		}
		needResult = true
	case secVeNCrypt:
		if err := h.veNCrypt(); err != nil {
			return err
		}
	case secARD:
		if err := h.ard(); err != nil {
			return err
		}
	}
	if !needResult {
		return nil
	}
	return h.securityResult()
}

func (h *handshake) vncAuth() error {
	challenge := h.r.bytes(16)
	if h.r.err != nil {
		return h.r.err
	}
	return h.write(vncAuthResponse(h.cfg.Password, challenge))
}

func (h *handshake) securityResult() error {
	status := h.r.u32()
	if h.r.err != nil {
		return h.r.err
	}
	if status == 0 {
		return nil
	}
	reason := ""
	if h.minor == 8 {
		reason = h.reason()
	}
	if reason == "" {
		reason = "the server rejected the credentials"
		if status == 2 {
			reason = "too many attempts"
		}
	}
	return &AuthError{Reason: reason}
}

func (h *handshake) serverInit() error {
	r := h.r
	h.width, h.height = int(r.u16()), int(r.u16())
	r.bytes(16) // the server's pixel format: we set our own right after
	n := r.u32()
	if r.err != nil {
		return r.err
	}
	if n > maxNameLen {
		return protoErr("desktop name of %d bytes", n)
	}
	h.name = string(r.bytes(int(n)))
	if r.err != nil {
		return r.err
	}
	return checkSize(h.cfg.Framebuffer, h.width, h.height)
}
