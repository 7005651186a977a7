package rdp

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/rc4"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/x509"
	"encoding/binary"
	"fmt"
	"math/big"
	"slices"
)

// Licensing (MS-RDPELE, MS-RDPBCGR 2.2.1.12). Most servers end licensing
// at once with a "valid client" alert. Others (xrdp, RD-licensed Windows
// servers) send a licence request; we answer with a new-licence request
// (RSA-encrypted premaster secret), then the platform challenge response,
// as MS-RDPELE describes.

const (
	licenseRequest        = 0x01
	licensePlatformChal   = 0x02
	licenseNewLicense     = 0x03
	licenseUpgrade        = 0x04
	licenseNewLicenseReq  = 0x13
	licensePlatformResp   = 0x15
	licenseErrorAlert     = 0xFF
	statusValidClient     = 0x00000007
	stNoTransition        = 0x00000002
	licensePreambleV3     = 0x03
	blobRandom            = 0x0002
	blobEncryptedData     = 0x0009
	blobClientUserName    = 0x000F
	blobClientMachineName = 0x0010
	keyExchangeRSA        = 0x00000001
	// maxLicenseKeyBytes bounds the server's RSA modulus (4096 bits).
	maxLicenseKeyBytes = 512
)

// licensing holds the state of one licence exchange.
type licensing struct {
	user, machine string
	clientRandom  []byte
	serverRandom  []byte
	premaster     []byte
	macSalt       []byte
	encKey        []byte
}

// handle processes one licensing PDU (after the security header) and
// returns the reply to send (nil for none) and whether licensing is done.
func (l *licensing) handle(b []byte) (reply []byte, done bool, err error) {
	const where = "licensing PDU"
	r := newReader(where, b)
	typ := r.u8()
	r.u8()  // flags
	r.u16() // size
	if r.err != nil {
		return nil, false, r.err
	}
	body := r.rest()
	switch typ {
	case licenseErrorAlert:
		er := newReader(where, body)
		code := er.u32()
		trans := er.u32()
		if er.err != nil {
			return nil, false, er.err
		}
		if code == statusValidClient && trans == stNoTransition {
			return nil, true, nil
		}
		return nil, false, &UnsupportedError{Msg: fmt.Sprintf("the server's licensing failed (error 0x%X); check its Remote Desktop licensing", code)}
	case licenseNewLicense, licenseUpgrade:
		return nil, true, nil
	case licenseRequest:
		reply, err := l.newLicenseRequest(body)
		return reply, false, err
	case licensePlatformChal:
		reply, err := l.platformChallengeResponse(body)
		return reply, false, err
	}
	return nil, false, protoErr(where, "unknown message type 0x%02X", typ)
}

func readBlob(r *reader) (typ uint16, data []byte) {
	typ = r.u16()
	n := int(r.u16())
	return typ, r.bytes(n)
}

// licensePDU frames a client licensing message with its security header.
func licensePDU(typ uint8, body []byte) []byte {
	var w writer
	w.u16(secLicensePkt)
	w.u16(0)
	w.u8(typ)
	w.u8(licensePreambleV3)
	w.u16(uint16(4 + len(body)))
	w.bytes(body)
	return w.b
}

func (l *licensing) newLicenseRequest(b []byte) ([]byte, error) {
	const where = "licence request"
	r := newReader(where, b)
	l.serverRandom = slices.Clone(r.bytes(32))
	r.u32() // product version
	r.skip(int(r.u32()))
	r.skip(int(r.u32()))
	readBlob(r) // key exchange list
	_, cert := readBlob(r)
	if r.err != nil {
		return nil, r.err
	}
	pub, err := licenseServerKey(cert)
	if err != nil {
		return nil, err
	}
	l.clientRandom = make([]byte, 32)
	l.premaster = make([]byte, 48)
	rand.Read(l.clientRandom)
	rand.Read(l.premaster)
	l.deriveKeys()

	var enc []byte
	if pub != nil {
		enc = rsaRawLE(l.premaster, pub)
	} else {
		// No certificate (TLS-only servers): the secret cannot be
		// protected, and such servers do not use it.
		enc = make([]byte, 72)
	}
	var w writer
	w.u32(keyExchangeRSA)
	w.u32(0x04000000 | 0x00010000) // platform: Windows NT, Microsoft client
	w.bytes(l.clientRandom)
	w.u16(blobRandom)
	w.u16(uint16(len(enc)))
	w.bytes(enc)
	user := append([]byte(l.user), 0)
	w.u16(blobClientUserName)
	w.u16(uint16(len(user)))
	w.bytes(user)
	machine := append([]byte(l.machine), 0)
	w.u16(blobClientMachineName)
	w.u16(uint16(len(machine)))
	w.bytes(machine)
	return licensePDU(licenseNewLicenseReq, w.b), nil
}

// licenseServerKey finds the RSA key in the licence request's server
// certificate: a proprietary certificate or an X.509 chain. nil, nil when
// the server sent none.
func licenseServerKey(cert []byte) (*rsa.PublicKey, error) {
	const where = "licence server certificate"
	if len(cert) == 0 {
		return nil, nil
	}
	r := newReader(where, cert)
	version := r.u32() & 0x7FFFFFFF
	if r.err != nil {
		return nil, r.err
	}
	switch version {
	case 1: // proprietary
		r.u32() // signature algorithm
		r.u32() // key algorithm
		if t := r.u16(); r.err == nil && t != 0x0006 {
			return nil, protoErr(where, "public key blob type 0x%X", t)
		}
		blob := r.bytes(int(r.u16()))
		if r.err != nil {
			return nil, r.err
		}
		br := newReader(where, blob)
		if magic := br.u32(); br.err == nil && magic != 0x31415352 { // "RSA1"
			return nil, protoErr(where, "public key magic 0x%X", magic)
		}
		keylen := int(br.u32())
		br.u32() // bit length
		br.u32() // data length
		exp := br.u32()
		if br.err != nil {
			return nil, br.err
		}
		if keylen < 8 || keylen > maxLicenseKeyBytes {
			return nil, protoErr(where, "modulus of %d bytes", keylen)
		}
		mod := slices.Clone(br.bytes(keylen))
		if br.err != nil {
			return nil, br.err
		}
		slices.Reverse(mod)
		n := new(big.Int).SetBytes(mod)
		if n.BitLen() < 256 || exp < 3 {
			// A zero or tiny modulus would make the exponentiation unbounded
			// or the encryption meaningless.
			return nil, protoErr(where, "RSA key of %d bits, exponent %d", n.BitLen(), exp)
		}
		return &rsa.PublicKey{N: n, E: int(exp)}, nil
	case 2: // X.509 chain: the last certificate is the server's
		n := int(r.u32())
		if n < 1 || n > 16 {
			return nil, protoErr(where, "%d certificates in the chain", n)
		}
		var last []byte
		for range n {
			last = r.bytes(int(r.u32()))
		}
		if r.err != nil {
			return nil, r.err
		}
		c, err := x509.ParseCertificate(last)
		if err != nil {
			return nil, protoErr(where, "%v", err)
		}
		pub, ok := c.PublicKey.(*rsa.PublicKey)
		if !ok {
			return nil, protoErr(where, "the server key is not RSA")
		}
		return pub, nil
	}
	return nil, protoErr(where, "certificate version %d", version)
}

// rsaRawLE is textbook RSA on little-endian numbers, as RDP licensing uses
// it, with 8 bytes of zero padding after the result.
func rsaRawLE(msg []byte, pub *rsa.PublicKey) []byte {
	m := slices.Clone(msg)
	slices.Reverse(m)
	c := new(big.Int).Exp(new(big.Int).SetBytes(m), big.NewInt(int64(pub.E)), pub.N)
	n := (pub.N.BitLen() + 7) / 8
	out := c.FillBytes(make([]byte, n))
	slices.Reverse(out)
	return append(out, make([]byte, 8)...)
}

func saltedHash(s, i, r1, r2 []byte) []byte {
	h := sha1.New()
	h.Write(i)
	h.Write(s)
	h.Write(r1)
	h.Write(r2)
	m := md5.New()
	m.Write(s)
	m.Write(h.Sum(nil))
	return m.Sum(nil)
}

// deriveKeys computes the MAC salt and licensing encryption key
// (MS-RDPELE 5.1.3).
func (l *licensing) deriveKeys() {
	var master []byte
	for _, i := range []string{"A", "BB", "CCC"} {
		master = append(master, saltedHash(l.premaster, []byte(i), l.clientRandom, l.serverRandom)...)
	}
	var blob []byte
	for _, i := range []string{"A", "BB", "CCC"} {
		blob = append(blob, saltedHash(master, []byte(i), l.serverRandom, l.clientRandom)...)
	}
	l.macSalt = blob[:16]
	m := md5.New()
	m.Write(blob[16:32])
	m.Write(l.clientRandom)
	m.Write(l.serverRandom)
	l.encKey = m.Sum(nil)
}

func (l *licensing) rc4(b []byte) []byte {
	c, _ := rc4.NewCipher(l.encKey)
	out := make([]byte, len(b))
	c.XORKeyStream(out, b)
	return out
}

// licenseMAC is the MAC of MS-RDPELE 5.1.6 (the RDP security MAC).
func (l *licensing) mac(data []byte) []byte {
	pad1 := make([]byte, 40)
	pad2 := make([]byte, 48)
	for i := range pad1 {
		pad1[i] = 0x36
	}
	for i := range pad2 {
		pad2[i] = 0x5C
	}
	h := sha1.New()
	h.Write(l.macSalt)
	h.Write(pad1)
	h.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(data))))
	h.Write(data)
	m := md5.New()
	m.Write(l.macSalt)
	m.Write(pad2)
	m.Write(h.Sum(nil))
	return m.Sum(nil)
}

func (l *licensing) platformChallengeResponse(b []byte) ([]byte, error) {
	const where = "licence platform challenge"
	if l.encKey == nil {
		return nil, protoErr(where, "challenge before a licence request")
	}
	r := newReader(where, b)
	r.u32() // connect flags
	_, encChal := readBlob(r)
	r.bytes(16) // MAC
	if r.err != nil {
		return nil, r.err
	}
	chal := l.rc4(encChal)
	var resp writer
	resp.u16(0x0100) // version
	resp.u16(0x0100) // client type: Win32
	resp.u16(0x0003) // licence detail level: chain
	resp.u16(uint16(len(chal)))
	resp.bytes(chal)
	var hwid writer
	hwid.u32(0x04000000 | 0x00010000)
	hwid.zeros(16)
	var w writer
	w.u16(blobEncryptedData)
	w.u16(uint16(len(resp.b)))
	w.bytes(l.rc4(resp.b))
	w.u16(blobEncryptedData)
	w.u16(uint16(len(hwid.b)))
	w.bytes(l.rc4(hwid.b))
	w.bytes(l.mac(append(slices.Clone(resp.b), hwid.b...)))
	return licensePDU(licensePlatformResp, w.b), nil
}
