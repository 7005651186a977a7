package rdp

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// MCS (T.125) and GCC (T.124) connection PDUs. MCS Connect-Initial and
// Connect-Response are BER; the GCC conference PDUs inside them and the MCS
// domain PDUs are PER (ALIGNED). Only the fixed shapes RDP uses are built.

// Client data block types (MS-RDPBCGR 2.2.1.3).
const (
	csCore     = 0xC001
	csSecurity = 0xC002
	csNet      = 0xC003
	scCore     = 0x0C01
	scSecurity = 0x0C02
	scNet      = 0x0C03
	scMsgChan  = 0x0C04
)

// Colour depth announcements in the client core data.
const (
	rnsUD8bpp       = 0xCA01
	rnsUDSASDel     = 0xAA03
	rnsUD24bppOK    = 0x0001
	rnsUD16bppOK    = 0x0002
	rnsUD15bppOK    = 0x0004
	rnsUD32bppOK    = 0x0008
	earlyErrInfoPDU = 0x0001
	earlyWant32bpp  = 0x0002
)

// clientCoreData is TS_UD_CS_CORE up to serverSelectedProtocol.
func clientCoreData(width, height, bpp int, name string, selected uint32) []byte {
	var w writer
	w.u16(csCore)
	w.u16(0)
	w.u32(0x00080004) // RDP 5.0 and later
	w.u16(uint16(width))
	w.u16(uint16(height))
	w.u16(rnsUD8bpp)
	w.u16(rnsUDSASDel)
	w.u32(0x409) // keyboard layout: US
	w.u32(2600)  // client build
	w.bytes(fixedUTF16(name, 32))
	w.u32(4)  // keyboard type: IBM enhanced 101/102
	w.u32(0)  // subtype
	w.u32(12) // function keys
	w.zeros(64)
	w.u16(rnsUD8bpp) // postBeta2ColorDepth
	w.u16(1)         // client product id
	w.u32(0)         // serial number
	w.u16(uint16(bpp))
	w.u16(rnsUD32bppOK | rnsUD24bppOK | rnsUD16bppOK | rnsUD15bppOK)
	early := uint16(earlyErrInfoPDU)
	if bpp == 32 {
		early |= earlyWant32bpp
	}
	w.u16(early)
	w.zeros(64) // clientDigProductId
	w.u8(0)     // connectionType
	w.u8(0)     // pad
	w.u32(selected)
	w.putU16(2, uint16(w.len()))
	return w.b
}

func clientSecurityData() []byte {
	var w writer
	w.u16(csSecurity)
	w.u16(12)
	w.u32(0) // no RDP encryption: TLS protects the link
	w.u32(0)
	return w.b
}

// clientNetworkData announces static virtual channels by name.
func clientNetworkData(channels []string) []byte {
	var w writer
	w.u16(csNet)
	w.u16(uint16(8 + 12*len(channels)))
	w.u32(uint32(len(channels)))
	for _, c := range channels {
		var name [8]byte
		copy(name[:7], c)
		w.bytes(name[:])
		w.u32(0x80000000 | 0x00200000) // CHANNEL_OPTION_INITIALIZED | SHOW_PROTOCOL
	}
	return w.b
}

// perLength appends a PER length determinant.
func perLength(w *writer, n int) {
	if n < 0x80 {
		w.u8(uint8(n))
		return
	}
	w.u16be(uint16(n) | 0x8000)
}

// gccConferenceCreateRequest wraps client data blocks (T.124 ConnectData
// with a ConferenceCreateRequest carrying H.221 key "Duca").
func gccConferenceCreateRequest(userData []byte) []byte {
	var inner writer
	inner.bytes([]byte{0x00, 0x08, 0x00, 0x10, 0x00, 0x01, 0xC0, 0x00})
	inner.bytes([]byte("Duca"))
	perLength(&inner, len(userData))
	inner.bytes(userData)
	var w writer
	w.bytes([]byte{0x00, 0x05, 0x00, 0x14, 0x7C, 0x00, 0x01}) // t124 object id
	perLength(&w, len(inner.b))
	w.bytes(inner.b)
	return w.b
}

// BER encoding for MCS Connect-Initial.

func berLength(w *writer, n int) {
	switch {
	case n < 0x80:
		w.u8(uint8(n))
	case n < 0x100:
		w.u8(0x81)
		w.u8(uint8(n))
	default:
		w.u8(0x82)
		w.u16be(uint16(n))
	}
}

func berTLV(w *writer, tag []byte, body []byte) {
	w.bytes(tag)
	berLength(w, len(body))
	w.bytes(body)
}

func berInt(w *writer, v int) {
	var b []byte
	switch {
	case v < 0x80:
		b = []byte{byte(v)}
	case v < 0x8000:
		b = []byte{byte(v >> 8), byte(v)}
	default:
		b = []byte{byte(v >> 16), byte(v >> 8), byte(v)}
	}
	berTLV(w, []byte{0x02}, b)
}

func domainParameters(p [8]int) []byte {
	var body writer
	for _, v := range p {
		berInt(&body, v)
	}
	var w writer
	berTLV(&w, []byte{0x30}, body.b)
	return w.b
}

// mcsConnectInitial builds the MCS Connect-Initial PDU around GCC data.
func mcsConnectInitial(gcc []byte) []byte {
	var body writer
	berTLV(&body, []byte{0x04}, []byte{1}) // callingDomainSelector
	berTLV(&body, []byte{0x04}, []byte{1}) // calledDomainSelector
	berTLV(&body, []byte{0x01}, []byte{0xFF})
	body.bytes(domainParameters([8]int{34, 2, 0, 1, 0, 1, 0xFFFF, 2}))
	body.bytes(domainParameters([8]int{1, 1, 1, 1, 0, 1, 0x420, 2}))
	body.bytes(domainParameters([8]int{0xFFFF, 0xFC17, 0xFFFF, 1, 0, 1, 0xFFFF, 2}))
	berTLV(&body, []byte{0x04}, gcc)
	var w writer
	berTLV(&w, []byte{0x7F, 0x65}, body.b)
	return w.b
}

// serverData is what the Connect-Response told us.
type serverData struct {
	Version       uint32
	EncMethod     uint32
	EncLevel      uint32
	IOChannel     uint16
	Channels      []uint16
	MsgChannel    uint16
	RequestedProt uint32
}

// maxServerChannels bounds the server's static channel list (31 in practice).
const maxServerChannels = 64

// parseConnectResponse parses MCS Connect-Response (BER) down to the GCC
// server data blocks.
func parseConnectResponse(b []byte) (*serverData, error) {
	const where = "MCS connect response"
	r := newReader(where, b)
	if t := r.bytes(2); r.err == nil && (t[0] != 0x7F || t[1] != 0x66) {
		return nil, protoErr(where, "tag %X is not Connect-Response", t)
	}
	berReadLen(r)
	// result
	if berExpect(r, 0x0A); r.err != nil {
		return nil, r.err
	}
	rl := berReadLen(r)
	res := r.bytes(rl)
	if r.err != nil {
		return nil, r.err
	}
	if len(res) != 1 {
		return nil, protoErr(where, "result of %d bytes", len(res))
	}
	if res[0] != 0 {
		return nil, &UnsupportedError{Msg: fmt.Sprintf("the server refused the MCS connection (result %d)", res[0])}
	}
	berExpect(r, 0x02) // calledConnectId
	r.skip(berReadLen(r))
	berExpect(r, 0x30) // domainParameters
	r.skip(berReadLen(r))
	berExpect(r, 0x04) // userData
	ul := berReadLen(r)
	gcc := r.bytes(ul)
	if r.err != nil {
		return nil, r.err
	}
	// The GCC ConferenceCreateResponse ends with the H.221 key "McDn", a PER
	// length and the server data blocks.
	i := bytes.Index(gcc, []byte("McDn"))
	if i < 0 || i > 64 {
		return nil, protoErr("GCC conference create response", "no McDn user data")
	}
	gr := newReader("GCC conference create response", gcc[i+4:])
	n := int(gr.u8())
	if n&0x80 != 0 {
		n = (n&0x7F)<<8 | int(gr.u8())
	}
	blocks := gr.bytes(min(n, gr.left()))
	if gr.err != nil {
		return nil, gr.err
	}
	return parseServerBlocks(blocks)
}

func berExpect(r *reader, tag byte) {
	if t := r.u8(); r.err == nil && t != tag {
		r.fail("BER tag 0x%02X, want 0x%02X", t, tag)
	}
}

func berReadLen(r *reader) int {
	l := int(r.u8())
	if l&0x80 == 0 {
		return l
	}
	k := l & 0x7F
	if k == 0 || k > 2 {
		r.fail("BER length of %d bytes", k)
		return 0
	}
	n := 0
	for range k {
		n = n<<8 | int(r.u8())
	}
	return n
}

func parseServerBlocks(b []byte) (*serverData, error) {
	sd := &serverData{}
	r := newReader("GCC server data", b)
	seenNet := false
	for r.left() >= 4 {
		typ := r.u16()
		l := int(r.u16())
		if l < 4 {
			return nil, protoErr("GCC server data", "block 0x%04X length %d", typ, l)
		}
		body := r.bytes(l - 4)
		if r.err != nil {
			return nil, r.err
		}
		br := newReader("GCC server data block", body)
		switch typ {
		case scCore:
			sd.Version = br.u32()
			if br.left() >= 4 {
				sd.RequestedProt = br.u32()
			}
		case scSecurity:
			sd.EncMethod = br.u32()
			sd.EncLevel = br.u32()
		case scNet:
			sd.IOChannel = br.u16()
			n := int(br.u16())
			if n > maxServerChannels {
				return nil, protoErr("GCC server network data", "%d channels is over the %d limit", n, maxServerChannels)
			}
			for range n {
				sd.Channels = append(sd.Channels, br.u16())
			}
			seenNet = true
		case scMsgChan:
			sd.MsgChannel = br.u16()
		}
		if br.err != nil {
			return nil, br.err
		}
	}
	if !seenNet {
		return nil, protoErr("GCC server data", "no network data block (no I/O channel)")
	}
	if sd.EncMethod != 0 || sd.EncLevel != 0 {
		return nil, &UnsupportedError{Msg: "the server wants standard RDP encryption inside TLS, which this client does not speak; set its encryption level to use TLS only"}
	}
	return sd, nil
}

// MCS domain PDUs (PER), by their DomainMCSPDU choice index.
const (
	mcsErectDomain     = 1
	mcsDisconnectUlt   = 8
	mcsAttachUserReq   = 10
	mcsAttachUserConf  = 11
	mcsChannelJoinReq  = 14
	mcsChannelJoinConf = 15
	mcsSendDataReq     = 25
	mcsSendDataInd     = 26
	mcsUserBase        = 1001
)

func mcsErectDomainRequest() []byte { return []byte{mcsErectDomain << 2, 1, 0, 1, 0} }

func mcsAttachUserRequest() []byte { return []byte{mcsAttachUserReq << 2} }

func mcsChannelJoinRequest(user, channel uint16) []byte {
	b := []byte{mcsChannelJoinReq << 2, 0, 0, 0, 0}
	binary.BigEndian.PutUint16(b[1:], user-mcsUserBase)
	binary.BigEndian.PutUint16(b[3:], channel)
	return b
}

func parseAttachUserConfirm(b []byte) (user uint16, err error) {
	r := newReader("MCS attach user confirm", b)
	if h := r.u8(); r.err == nil && h>>2 != mcsAttachUserConf {
		return 0, protoErr("MCS attach user confirm", "PDU type %d", h>>2)
	}
	if res := r.u8(); r.err == nil && res != 0 {
		return 0, &UnsupportedError{Msg: "the server refused to attach an MCS user"}
	}
	user = r.u16be() + mcsUserBase
	return user, r.err
}

func parseChannelJoinConfirm(b []byte) (channel uint16, err error) {
	r := newReader("MCS channel join confirm", b)
	if h := r.u8(); r.err == nil && h>>2 != mcsChannelJoinConf {
		return 0, protoErr("MCS channel join confirm", "PDU type %d", h>>2)
	}
	res := r.u8()
	r.u16be() // initiator
	req := r.u16be()
	if r.err != nil {
		return 0, r.err
	}
	if res != 0 {
		return 0, &UnsupportedError{Msg: "the server refused to join an MCS channel"}
	}
	return req, nil
}

// mcsSendData frames a Send Data Request from user to channel.
func mcsSendData(user, channel uint16, data []byte) []byte {
	var w writer
	w.u8(mcsSendDataReq << 2)
	w.u16be(user - mcsUserBase)
	w.u16be(channel)
	w.u8(0x70) // high priority, begin and end segmentation
	perLength(&w, len(data))
	w.bytes(data)
	return w.b
}

// parseSendDataIndication returns the channel and data of an MCS Send Data
// Indication, or a DisconnectError for a Disconnect Provider Ultimatum.
func parseSendDataIndication(b []byte) (channel uint16, data []byte, err error) {
	const where = "MCS send data indication"
	r := newReader(where, b)
	h := r.u8()
	if r.err != nil {
		return 0, nil, r.err
	}
	switch h >> 2 {
	case mcsSendDataInd:
	case mcsDisconnectUlt:
		return 0, nil, &DisconnectError{Reason: "MCS disconnect provider ultimatum"}
	default:
		return 0, nil, protoErr(where, "unexpected MCS PDU type %d", h>>2)
	}
	r.u16be() // initiator
	channel = r.u16be()
	r.u8() // priority and segmentation
	n := int(r.u8())
	if n&0x80 != 0 {
		n = (n&0x7F)<<8 | int(r.u8())
	}
	data = r.bytes(n)
	return channel, data, r.err
}
