package rdp

import (
	"bytes"
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/rc4"
	"encoding/binary"
	"strings"
	"time"
	"unicode/utf16"

	//lint:ignore SA1019 NTLM's NT hash is MD4 by definition (MS-NLMP 3.3.1); no other hash interoperates
	"golang.org/x/crypto/md4"
)

// NTLM negotiate flags used by this client (MS-NLMP 2.2.2.5).
const (
	ntlmNegotiateUnicode    = 0x00000001
	ntlmRequestTarget       = 0x00000004
	ntlmNegotiateSign       = 0x00000010
	ntlmNegotiateSeal       = 0x00000020
	ntlmNegotiateNTLM       = 0x00000200
	ntlmNegotiateAlwaysSign = 0x00008000
	ntlmNegotiateExtSec     = 0x00080000
	ntlmNegotiateTargetInfo = 0x00800000
	ntlmNegotiateVersion    = 0x02000000
	ntlmNegotiate128        = 0x20000000
	ntlmNegotiateKeyExch    = 0x40000000
	ntlmNegotiate56         = 0x80000000

	ntlmClientFlags = ntlmNegotiate56 | ntlmNegotiateKeyExch | ntlmNegotiate128 | ntlmNegotiateVersion |
		ntlmNegotiateExtSec | ntlmNegotiateAlwaysSign | ntlmNegotiateNTLM | ntlmNegotiateSeal |
		ntlmNegotiateSign | ntlmRequestTarget | ntlmNegotiateUnicode
)

// AV pair ids in the challenge's target info (MS-NLMP 2.2.2.1).
const (
	avEOL       = 0
	avFlags     = 6
	avTimestamp = 7
)

var ntlmSignature = []byte("NTLMSSP\x00")

// ntlmVersion is the VERSION structure: Windows 10 build 19041, NTLM rev 15.
var ntlmVersion = []byte{10, 0, 0x61, 0x4A, 0, 0, 0, 15}

// maxNTLMMessage bounds a CHALLENGE message; real ones are a few hundred bytes.
const maxNTLMMessage = 64 << 10

// ntlmChallenge is the parsed CHALLENGE_MESSAGE.
type ntlmChallenge struct {
	Flags      uint32
	Challenge  [8]byte
	TargetInfo []byte
	Timestamp  []byte // MsvAvTimestamp value, nil when absent
	raw        []byte
}

func ntlmNegotiateMessage() []byte {
	var w writer
	w.bytes(ntlmSignature)
	w.u32(1)
	w.u32(ntlmClientFlags)
	w.zeros(16) // domain and workstation fields: not supplied
	w.bytes(ntlmVersion)
	return w.b
}

// parseNTLMChallenge checks and parses a CHALLENGE_MESSAGE.
func parseNTLMChallenge(b []byte) (*ntlmChallenge, error) {
	const where = "NTLM challenge"
	if len(b) > maxNTLMMessage {
		return nil, protoErr(where, "%d bytes is over the %d limit", len(b), maxNTLMMessage)
	}
	r := newReader(where, b)
	if sig := r.bytes(8); r.err == nil && !bytes.Equal(sig, ntlmSignature) {
		return nil, protoErr(where, "bad signature")
	}
	if t := r.u32(); r.err == nil && t != 2 {
		return nil, protoErr(where, "message type %d, want 2", t)
	}
	r.skip(8) // target name fields
	c := &ntlmChallenge{raw: b}
	c.Flags = r.u32()
	copy(c.Challenge[:], r.bytes(8))
	r.skip(8) // reserved
	tiLen := int(r.u16())
	r.u16()
	tiOff := int(r.u32())
	if r.err != nil {
		return nil, r.err
	}
	if tiLen > 0 {
		if tiOff < 0 || tiOff > len(b) || tiLen > len(b)-tiOff {
			return nil, protoErr(where, "target info (%d bytes at %d) outside the %d-byte message", tiLen, tiOff, len(b))
		}
		c.TargetInfo = b[tiOff : tiOff+tiLen]
	}
	// Walk the AV pairs, both to validate them and to find the timestamp.
	ar := newReader("NTLM target info", c.TargetInfo)
	for ar.left() > 0 {
		id := ar.u16()
		n := int(ar.u16())
		v := ar.bytes(n)
		if ar.err != nil {
			return nil, ar.err
		}
		if id == avEOL {
			break
		}
		if id == avTimestamp && n == 8 {
			c.Timestamp = v
		}
	}
	return c, nil
}

// ntlmAuth holds what the AUTHENTICATE step produced: the message, and the
// keys and cipher states for sealing (MS-NLMP 3.4).
type ntlmAuth struct {
	Message    []byte
	sessionKey []byte
	clientSign []byte
	serverSign []byte
	clientSeal *rc4.Cipher
	serverSeal *rc4.Cipher
	sendSeq    uint32
	recvSeq    uint32
}

// ntowfv2 is NTOWFv2 (MS-NLMP 3.3.2).
func ntowfv2(password, user, domain string) []byte {
	h := md4.New()
	h.Write(utf16le(password))
	m := hmac.New(md5.New, h.Sum(nil))
	m.Write(utf16le(strings.ToUpper(user) + domain))
	return m.Sum(nil)
}

func hmacMD5(key []byte, parts ...[]byte) []byte {
	m := hmac.New(md5.New, key)
	for _, p := range parts {
		m.Write(p)
	}
	return m.Sum(nil)
}

// filetime is t as a Windows FILETIME (100 ns ticks since 1601).
func filetime(t time.Time) []byte {
	v := uint64(t.UnixNano()/100) + 116444736000000000
	return binary.LittleEndian.AppendUint64(nil, v)
}

// ntlmAuthenticate computes the NTLMv2 response and builds the
// AUTHENTICATE_MESSAGE with a MIC over all three messages.
func ntlmAuthenticate(negotiate []byte, ch *ntlmChallenge, user, domain, password string, now time.Time) (*ntlmAuth, error) {
	clientChallenge := make([]byte, 8)
	exported := make([]byte, 16)
	if _, err := rand.Read(clientChallenge); err != nil {
		return nil, err
	}
	if _, err := rand.Read(exported); err != nil {
		return nil, err
	}
	return ntlmAuthenticateWith(negotiate, ch, user, domain, password, now, clientChallenge, exported)
}

func ntlmAuthenticateWith(negotiate []byte, ch *ntlmChallenge, user, domain, password string, now time.Time, clientChallenge, exported []byte) (*ntlmAuth, error) {
	key := ntowfv2(password, user, domain)
	ts := ch.Timestamp
	if ts == nil {
		ts = filetime(now)
	}
	// Target info echoed back, with MsvAvFlags saying a MIC is present.
	ti := withMICFlag(ch.TargetInfo)
	var temp writer
	temp.bytes([]byte{1, 1, 0, 0, 0, 0, 0, 0})
	temp.bytes(ts)
	temp.bytes(clientChallenge)
	temp.u32(0)
	temp.bytes(ti)
	temp.u32(0)
	proof := hmacMD5(key, ch.Challenge[:], temp.b)
	ntResp := append(append([]byte{}, proof...), temp.b...)
	lmResp := make([]byte, 24) // Z(24): the challenge carried a timestamp, or we send one
	if ch.Timestamp == nil {
		lmResp = append(hmacMD5(key, ch.Challenge[:], clientChallenge), clientChallenge...)
	}
	sessionBase := hmacMD5(key, proof)
	flags := ch.Flags & ntlmClientFlags
	flags |= ntlmNegotiateUnicode
	encKey := make([]byte, 16)
	if flags&ntlmNegotiateKeyExch != 0 {
		c, _ := rc4.NewCipher(sessionBase)
		c.XORKeyStream(encKey, exported)
	} else {
		exported = sessionBase
		encKey = nil
	}

	domU, userU, wsU := utf16le(domain), utf16le(user), []byte(nil)
	const hdr = 88
	var w writer
	w.bytes(ntlmSignature)
	w.u32(3)
	off := hdr
	field := func(n int) {
		w.u16(uint16(n))
		w.u16(uint16(n))
		w.u32(uint32(off))
		off += n
	}
	field(len(lmResp))
	field(len(ntResp))
	field(len(domU))
	field(len(userU))
	field(len(wsU))
	field(len(encKey))
	w.u32(flags)
	w.bytes(ntlmVersion)
	micAt := w.len()
	w.zeros(16)
	for _, p := range [][]byte{lmResp, ntResp, domU, userU, wsU, encKey} {
		w.bytes(p)
	}
	mic := hmacMD5(exported, negotiate, ch.raw, w.b)
	copy(w.b[micAt:], mic)

	a := &ntlmAuth{Message: w.b, sessionKey: exported}
	a.clientSign = signKey(exported, "session key to client-to-server signing key magic constant\x00")
	a.serverSign = signKey(exported, "session key to server-to-client signing key magic constant\x00")
	a.clientSeal, _ = rc4.NewCipher(signKey(exported, "session key to client-to-server sealing key magic constant\x00"))
	a.serverSeal, _ = rc4.NewCipher(signKey(exported, "session key to server-to-client sealing key magic constant\x00"))
	return a, nil
}

func signKey(key []byte, magic string) []byte {
	h := md5.New()
	h.Write(key)
	h.Write([]byte(magic))
	return h.Sum(nil)
}

// withMICFlag returns a copy of the target info with MsvAvFlags bit 0x2
// ("MIC present") set, inserted before MsvAvEOL when absent.
func withMICFlag(ti []byte) []byte {
	var w writer
	found := false
	r := newReader("", ti)
	for r.left() >= 4 {
		id := r.u16()
		n := int(r.u16())
		v := r.bytes(n)
		if r.err != nil {
			break
		}
		if id == avEOL {
			break
		}
		if id == avFlags && n == 4 {
			found = true
			v = binary.LittleEndian.AppendUint32(nil, binary.LittleEndian.Uint32(v)|2)
		}
		w.u16(id)
		w.u16(uint16(len(v)))
		w.bytes(v)
	}
	if !found {
		w.u16(avFlags)
		w.u16(4)
		w.u32(2)
	}
	w.u32(0) // MsvAvEOL
	return w.b
}

// seal encrypts msg for the server and returns signature ‖ ciphertext, the
// layout CredSSP carries in authInfo and pubKeyAuth.
func (a *ntlmAuth) seal(msg []byte) []byte {
	out := make([]byte, 16+len(msg))
	seq := binary.LittleEndian.AppendUint32(nil, a.sendSeq)
	a.clientSeal.XORKeyStream(out[16:], msg)
	sum := hmacMD5(a.clientSign, seq, msg)[:8]
	binary.LittleEndian.PutUint32(out[0:], 1)
	a.clientSeal.XORKeyStream(out[4:12], sum)
	copy(out[12:], seq)
	a.sendSeq++
	return out
}

// unseal checks and decrypts a server message sealed the same way.
func (a *ntlmAuth) unseal(b []byte) ([]byte, error) {
	if len(b) < 16 {
		return nil, protoErr("CredSSP sealed message", "%d bytes is shorter than its signature", len(b))
	}
	msg := make([]byte, len(b)-16)
	a.serverSeal.XORKeyStream(msg, b[16:])
	sum := make([]byte, 8)
	a.serverSeal.XORKeyStream(sum, b[4:12])
	seq := binary.LittleEndian.AppendUint32(nil, a.recvSeq)
	want := hmacMD5(a.serverSign, seq, msg)[:8]
	if binary.LittleEndian.Uint32(b[0:]) != 1 || !hmac.Equal(sum, want) || !bytes.Equal(b[12:16], seq) {
		return nil, protoErr("CredSSP sealed message", "signature does not verify")
	}
	a.recvSeq++
	return msg, nil
}

// decodeUTF16 is the inverse of utf16le, for tests and diagnostics.
func decodeUTF16(b []byte) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u))
}
