package rdp

import (
	"net"
	"strings"
)

// Share control PDU types (MS-RDPBCGR 2.2.8.1.1.1.1).
const (
	pduDemandActive  = 0x1
	pduConfirmActive = 0x3
	pduDeactivateAll = 0x6
	pduData          = 0x7
	pduServerRedir   = 0xA
)

// Share data PDU types (pduType2).
const (
	pdu2Update          = 0x02
	pdu2Control         = 0x14
	pdu2Pointer         = 0x1B
	pdu2Input           = 0x1C
	pdu2Synchronize     = 0x1F
	pdu2RefreshRect     = 0x21
	pdu2PlaySound       = 0x22
	pdu2ShutdownDenied  = 0x25
	pdu2SaveSessionInfo = 0x26
	pdu2FontList        = 0x27
	pdu2FontMap         = 0x28
	pdu2KbdIndicators   = 0x29
	pdu2SetErrorInfo    = 0x2F
)

// Security header flags in the basic security header.
const (
	secInfoPkt    = 0x0040
	secLicensePkt = 0x0080
)

// shareControl is a parsed share control header and its body.
type shareControl struct {
	Type   uint16
	Source uint16
	Body   []byte
}

// parseShareControl reads one share control PDU. A flow PDU (length
// 0x8000) is returned with Type 0 and ignored by callers.
func parseShareControl(b []byte) (*shareControl, []byte, error) {
	const where = "share control header"
	r := newReader(where, b)
	total := int(r.u16())
	if r.err != nil {
		return nil, nil, r.err
	}
	if total == 0x8000 {
		return &shareControl{}, nil, nil // flow control PDU: nothing follows we use
	}
	if total < 4 || total > len(b) {
		return nil, nil, protoErr(where, "total length %d for %d bytes", total, len(b))
	}
	typ := r.u16()
	sc := &shareControl{Type: typ & 0xF}
	if total >= 6 {
		sc.Source = r.u16()
	}
	sc.Body = b[r.off:total]
	return sc, b[total:], r.err
}

// shareData is a parsed share data header.
type shareData struct {
	ShareID uint32
	Type2   uint8
	Body    []byte
}

func parseShareData(b []byte) (*shareData, error) {
	const where = "share data header"
	r := newReader(where, b)
	sd := &shareData{}
	sd.ShareID = r.u32()
	r.u8()  // pad
	r.u8()  // stream id
	r.u16() // uncompressed length
	sd.Type2 = r.u8()
	ctype := r.u8()
	r.u16() // compressed length
	if r.err != nil {
		return nil, r.err
	}
	if ctype&0x20 != 0 { // PACKET_COMPRESSED
		return nil, protoErr(where, "compressed data PDU although we asked for no compression")
	}
	sd.Body = r.rest()
	return sd, nil
}

// demandActive is what we keep from a Demand Active PDU.
type demandActive struct {
	ShareID uint32
	Caps    *serverCaps
}

func parseDemandActive(b []byte) (*demandActive, error) {
	const where = "demand active"
	r := newReader(where, b)
	da := &demandActive{ShareID: r.u32()}
	srcLen := int(r.u16())
	capsLen := int(r.u16())
	r.skip(srcLen)
	n := int(r.u16())
	r.u16()
	if r.err != nil {
		return nil, r.err
	}
	if capsLen < 4 || capsLen-4 > r.left() {
		return nil, protoErr(where, "capabilities length %d with %d bytes left", capsLen, r.left())
	}
	caps, err := parseCapabilities(r.bytes(capsLen-4), n)
	if err != nil {
		return nil, err
	}
	da.Caps = caps
	return da, nil
}

// shareControlPDU wraps body in a share control header.
func shareControlPDU(typ uint16, source uint16, body []byte) []byte {
	var w writer
	w.u16(uint16(6 + len(body)))
	w.u16(typ | 0x10)
	w.u16(source)
	w.bytes(body)
	return w.b
}

func confirmActive(shareID uint32, user uint16, width, height, bpp int) []byte {
	sets, n := clientCapabilities(width, height, bpp)
	src := []byte("MSTSC\x00")
	var w writer
	w.u32(shareID)
	w.u16(0x03EA) // originator: the server's channel
	w.u16(uint16(len(src)))
	w.u16(uint16(len(sets) + 4))
	w.bytes(src)
	w.u16(uint16(n))
	w.u16(0)
	w.bytes(sets)
	return shareControlPDU(pduConfirmActive, user, w.b)
}

// shareDataPDU wraps body in share control + share data headers.
func shareDataPDU(shareID uint32, user uint16, type2 uint8, body []byte) []byte {
	var w writer
	w.u32(shareID)
	w.u8(0)
	w.u8(1) // STREAM_LOW
	w.u16(uint16(len(body) + 4))
	w.u8(type2)
	w.u8(0)
	w.u16(0)
	w.bytes(body)
	return shareControlPDU(pduData, user, w.b)
}

func synchronizeBody() []byte { return []byte{1, 0, 0xEA, 0x03} }

func controlBody(action uint16) []byte {
	var w writer
	w.u16(action)
	w.u16(0)
	w.u32(0)
	return w.b
}

func fontListBody() []byte {
	var w writer
	w.u16(0)
	w.u16(0)
	w.u16(0x0003) // first and last
	w.u16(0x0032)
	return w.b
}

func refreshRectBody(width, height int) []byte {
	var w writer
	w.u8(1)
	w.zeros(3)
	w.u16(0)
	w.u16(0)
	w.u16(uint16(width - 1))
	w.u16(uint16(height - 1))
	return w.b
}

// Client info flags (MS-RDPBCGR 2.2.1.11.1.1).
const (
	infoMouse            = 0x00000001
	infoDisableCtrlAlt   = 0x00000002
	infoAutologon        = 0x00000008
	infoUnicode          = 0x00000010
	infoMaximizeShell    = 0x00000020
	infoLogonNotify      = 0x00000040
	infoEnableWindowsKey = 0x00000100
	infoLogonErrors      = 0x00010000
	infoMouseHasWheel    = 0x00020000
	infoNoAudioPlayback  = 0x00080000
)

// Performance flags: we skip eye candy that only costs bandwidth.
const perfFlags = 0x01 | 0x02 | 0x04 | 0x20 // wallpaper, full-window drag, menu animations, cursor shadow

// clientInfo builds the Client Info PDU body (with its security header).
func clientInfo(user, domain, password string, local net.Addr) []byte {
	flags := uint32(infoMouse | infoDisableCtrlAlt | infoUnicode | infoMaximizeShell | infoLogonNotify |
		infoEnableWindowsKey | infoLogonErrors | infoMouseHasWheel | infoNoAudioPlayback)
	if password != "" {
		flags |= infoAutologon
	}
	dom, usr, pw := utf16le(domain), utf16le(user), utf16le(password)
	var w writer
	w.u16(secInfoPkt)
	w.u16(0)
	w.u32(0) // code page
	w.u32(flags)
	w.u16(uint16(len(dom)))
	w.u16(uint16(len(usr)))
	w.u16(uint16(len(pw)))
	w.u16(0) // alternate shell
	w.u16(0) // working dir
	for _, s := range [][]byte{dom, usr, pw, nil, nil} {
		w.bytes(s)
		w.u16(0)
	}
	addr := "127.0.0.1"
	if local != nil {
		if h, _, err := net.SplitHostPort(local.String()); err == nil {
			addr = h
		}
	}
	family := uint16(2) // AF_INET
	if strings.Contains(addr, ":") {
		family = 0x17 // AF_INET6
	}
	a := append(utf16le(addr), 0, 0)
	dir := append(utf16le(`C:\Windows\System32\mstscax.dll`), 0, 0)
	w.u16(family)
	w.u16(uint16(len(a)))
	w.bytes(a)
	w.u16(uint16(len(dir)))
	w.bytes(dir)
	w.zeros(172) // time zone: UTC
	w.u32(0)     // session id
	w.u32(perfFlags)
	w.u16(0) // no auto-reconnect cookie
	return w.b
}
