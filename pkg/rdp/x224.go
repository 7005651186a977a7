package rdp

import (
	"bufio"
	"encoding/binary"
	"io"
)

// Security protocols in the negotiation request and response
// (MS-RDPBCGR 2.2.1.1.1).
const (
	ProtocolRDP      = 0x0
	ProtocolSSL      = 0x1
	ProtocolHybrid   = 0x2
	ProtocolRDSTLS   = 0x4
	ProtocolHybridEx = 0x8
	ProtocolRDSAAD   = 0x10
)

const (
	tpktVersion   = 3
	x224CR        = 0xE0 // connection request
	x224CC        = 0xD0 // connection confirm
	x224DT        = 0xF0 // data
	x224DR        = 0x80 // disconnect request
	negReq        = 0x01
	negRsp        = 0x02
	negFailure    = 0x03
	tpktHeaderLen = 4
)

// tpktFrame wraps an X.224 payload in a TPKT header.
func tpktFrame(payload []byte) []byte {
	out := make([]byte, 4, 4+len(payload))
	out[0] = tpktVersion
	binary.BigEndian.PutUint16(out[2:], uint16(4+len(payload)))
	return append(out, payload...)
}

// x224Data frames a data TPDU around payload.
func x224Data(payload []byte) []byte {
	out := make([]byte, 7, 7+len(payload))
	out[0] = tpktVersion
	binary.BigEndian.PutUint16(out[2:], uint16(7+len(payload)))
	out[4], out[5], out[6] = 2, x224DT, 0x80
	return append(out, payload...)
}

// connectionRequest is the X.224 Connection Request carrying a routing
// cookie and the RDP negotiation request.
func connectionRequest(cookie string, protocols uint32) []byte {
	var w writer
	w.u8(0) // length indicator, set below
	w.u8(x224CR)
	w.u16be(0) // dst-ref
	w.u16be(0) // src-ref
	w.u8(0)    // class 0
	if cookie != "" {
		w.bytes([]byte("Cookie: mstshash=" + cookie + "\r\n"))
	}
	w.u8(negReq)
	w.u8(0)
	w.u16(8)
	w.u32(protocols)
	w.b[0] = byte(len(w.b) - 1)
	return tpktFrame(w.b)
}

// parseConnectionConfirm reads the X.224 Connection Confirm (the TPKT
// header already removed) and returns the protocol the server selected.
// A server that answers without a negotiation response speaks only
// standard RDP security.
func parseConnectionConfirm(b []byte) (selected uint32, err error) {
	r := newReader("X.224 connection confirm", b)
	li := int(r.u8())
	code := r.u8()
	if r.err != nil {
		return 0, r.err
	}
	if code&0xF0 != x224CC {
		return 0, protoErr("X.224 connection confirm", "TPDU code 0x%02X is not a connection confirm", code)
	}
	if li+1 > len(b) || li < 6 {
		return 0, protoErr("X.224 connection confirm", "length indicator %d does not fit %d bytes", li, len(b))
	}
	r.skip(5) // dst-ref, src-ref, class
	if r.left() < 8 {
		return ProtocolRDP, nil
	}
	typ := r.u8()
	r.u8() // flags
	l := r.u16()
	v := r.u32()
	if r.err != nil {
		return 0, r.err
	}
	if l != 8 {
		return 0, protoErr("RDP negotiation response", "length %d, want 8", l)
	}
	switch typ {
	case negRsp:
		return v, nil
	case negFailure:
		return 0, &NegotiationError{Code: v}
	}
	return 0, protoErr("RDP negotiation response", "unknown type 0x%02X", typ)
}

// pduKind tells a TPKT-framed PDU from a fast-path one.
type pduKind int

const (
	pduX224 pduKind = iota
	pduFastPath
)

// readPDU reads one PDU: a TPKT frame (payload without the TPKT header) or
// a fast-path PDU (first header byte returned separately, body without the
// length bytes). Lengths are bounded by their 15/16-bit fields.
func readPDU(br *bufio.Reader, buf []byte) (kind pduKind, hdr byte, body []byte, err error) {
	first, err := br.ReadByte()
	if err != nil {
		return 0, 0, nil, err
	}
	if first == tpktVersion {
		var h [3]byte
		if _, err := io.ReadFull(br, h[:]); err != nil {
			return 0, 0, nil, unexpectedEOF(err)
		}
		n := int(binary.BigEndian.Uint16(h[1:]))
		if n < tpktHeaderLen {
			return 0, 0, nil, protoErr("TPKT header", "length %d shorter than the header", n)
		}
		body = growBuf(buf, n-tpktHeaderLen)
		if _, err := io.ReadFull(br, body); err != nil {
			return 0, 0, nil, unexpectedEOF(err)
		}
		return pduX224, first, body, nil
	}
	if first&0x3 != 0 {
		return 0, 0, nil, protoErr("PDU header", "first byte 0x%02X is neither TPKT nor fast-path", first)
	}
	l1, err := br.ReadByte()
	if err != nil {
		return 0, 0, nil, unexpectedEOF(err)
	}
	n, hl := int(l1), 2
	if l1&0x80 != 0 {
		l2, err := br.ReadByte()
		if err != nil {
			return 0, 0, nil, unexpectedEOF(err)
		}
		n, hl = int(l1&0x7F)<<8|int(l2), 3
	}
	if n < hl {
		return 0, 0, nil, protoErr("fast-path header", "length %d shorter than the header", n)
	}
	body = growBuf(buf, n-hl)
	if _, err := io.ReadFull(br, body); err != nil {
		return 0, 0, nil, unexpectedEOF(err)
	}
	return pduFastPath, first, body, nil
}

func growBuf(buf []byte, n int) []byte {
	if cap(buf) >= n {
		return buf[:n]
	}
	return make([]byte, n)
}

func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// x224Payload strips the X.224 data TPDU header from a TPKT payload.
func x224Payload(b []byte) ([]byte, error) {
	if len(b) >= 2 && b[1]&0xF0 == x224DR {
		return nil, &DisconnectError{Reason: "the server disconnected (X.224 disconnect request)"}
	}
	if len(b) < 3 || b[0] != 2 || b[1] != x224DT {
		if len(b) >= 2 {
			return nil, protoErr("X.224 data", "TPDU header %X is not a data TPDU", b[:min(3, len(b))])
		}
		return nil, protoErr("X.224 data", "truncated TPDU header")
	}
	return b[3:], nil
}
