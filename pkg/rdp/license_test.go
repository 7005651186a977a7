package rdp

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"math/big"
	"slices"
	"testing"
)

// proprietaryCert encodes pub as a proprietary server certificate.
func proprietaryCert(pub *rsa.PublicKey) []byte {
	mod := pub.N.FillBytes(make([]byte, (pub.N.BitLen()+7)/8))
	slices.Reverse(mod)
	mod = append(mod, make([]byte, 8)...)
	var blob writer
	blob.u32(0x31415352)
	blob.u32(uint32(len(mod)))
	blob.u32(uint32(pub.N.BitLen()))
	blob.u32(uint32(len(mod) - 8 - 1))
	blob.u32(uint32(pub.E))
	blob.bytes(mod)
	var w writer
	w.u32(1)
	w.u32(1)
	w.u32(1)
	w.u16(0x0006)
	w.u16(uint16(len(blob.b)))
	w.bytes(blob.b)
	w.u16(0x0008)
	w.u16(0)
	return w.b
}

func licenseRequestPDU(serverRandom, cert []byte) []byte {
	var w writer
	w.u8(licenseRequest)
	w.u8(3)
	w.u16(0)
	w.bytes(serverRandom)
	w.u32(0x00060000)
	w.u32(4)
	w.bytes([]byte("M\x00\x00\x00"))
	w.u32(4)
	w.bytes([]byte("A\x00\x00\x00"))
	w.u16(0x000D)
	w.u16(4)
	w.u32(keyExchangeRSA)
	w.u16(0x0003)
	w.u16(uint16(len(cert)))
	w.bytes(cert)
	w.u32(0)
	return w.b
}

func TestLicensingExchange(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	serverRandom := bytes.Repeat([]byte{0x5A}, 32)
	l := &licensing{user: "alice", machine: "dvv"}
	reply, done, err := l.handle(licenseRequestPDU(serverRandom, proprietaryCert(&key.PublicKey)))
	if err != nil || done || reply == nil {
		t.Fatalf("licence request: %v done=%v", err, done)
	}
	// The server's side: decrypt the premaster secret with its private key.
	r := newReader("test", reply[4+4:])
	if r.u32() != keyExchangeRSA {
		t.Fatal("key exchange algorithm")
	}
	r.u32()
	clientRandom := r.bytes(32)
	_, enc := readBlob(r)
	if r.err != nil || !bytes.Equal(clientRandom, l.clientRandom) {
		t.Fatalf("new licence request: %v", r.err)
	}
	c := slices.Clone(enc[:len(enc)-8])
	slices.Reverse(c)
	m := new(big.Int).Exp(new(big.Int).SetBytes(c), key.D, key.N).FillBytes(make([]byte, 48))
	slices.Reverse(m)
	if !bytes.Equal(m, l.premaster) {
		t.Fatal("the server cannot recover the premaster secret")
	}
	// Platform challenge encrypted with the server's copy of the keys.
	srv := &licensing{clientRandom: clientRandom, serverRandom: serverRandom, premaster: m}
	srv.deriveKeys()
	chal := []byte("TEST\x00")
	var pc writer
	pc.u8(licensePlatformChal)
	pc.u8(3)
	pc.u16(0)
	pc.u32(0)
	pc.u16(blobEncryptedData)
	pc.u16(uint16(len(chal)))
	pc.bytes(srv.rc4(chal))
	pc.bytes(srv.mac(chal))
	reply, done, err = l.handle(pc.b)
	if err != nil || done {
		t.Fatalf("platform challenge: %v", err)
	}
	rr := newReader("test", reply[8:])
	_, encResp := readBlob(rr)
	_, encHWID := readBlob(rr)
	mac := rr.bytes(16)
	if rr.err != nil {
		t.Fatal(rr.err)
	}
	resp, hwid := srv.rc4(encResp), srv.rc4(encHWID)
	if !bytes.Equal(resp[8:], chal) || !bytes.Equal(mac, srv.mac(append(slices.Clone(resp), hwid...))) {
		t.Fatalf("platform challenge response does not verify: %x", resp)
	}
	// Then the server says the client is valid.
	_, done, err = l.handle([]byte{licenseErrorAlert, 3, 16, 0, 7, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0})
	if err != nil || !done {
		t.Fatalf("valid client alert: %v done=%v", err, done)
	}
}

func TestLicensingErrors(t *testing.T) {
	var ue *UnsupportedError
	l := &licensing{}
	if _, _, err := l.handle([]byte{licenseErrorAlert, 3, 16, 0, 5, 0, 0, 0, 1, 0, 0, 0}); !errors.As(err, &ue) {
		t.Errorf("licence error: %v", err)
	}
	var pe *ProtocolError
	for name, in := range map[string][]byte{
		"unknown type":         {0x42, 3, 4, 0},
		"challenge before key": {licensePlatformChal, 3, 4, 0, 0, 0, 0, 0},
		"truncated request":    {licenseRequest, 3, 0, 0, 1, 2, 3},
		"bad certificate":      licenseRequestPDU(make([]byte, 32), []byte{9, 0, 0, 0}),
		"huge modulus": licenseRequestPDU(make([]byte, 32), func() []byte {
			c := proprietaryCert(&rsa.PublicKey{N: big.NewInt(99991), E: 3})
			c[20] = 0xFF
			c[21] = 0xFF
			return c
		}()),
		"empty": nil,
	} {
		if _, _, err := (&licensing{}).handle(in); !errors.As(err, &pe) {
			t.Errorf("%s: %v, want ProtocolError", name, err)
		}
	}
	// No certificate at all (TLS-only servers): a reply is still sent.
	if reply, _, err := (&licensing{}).handle(licenseRequestPDU(make([]byte, 32), nil)); err != nil || reply == nil {
		t.Errorf("request without certificate: %v", err)
	}
}

func FuzzLicense(f *testing.F) {
	n, _ := new(big.Int).SetString("d3c1f2a9b8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170615243", 16)
	f.Add(licenseRequestPDU(make([]byte, 32), proprietaryCert(&rsa.PublicKey{N: n, E: 65537})))
	f.Add(licenseRequestPDU(make([]byte, 32), proprietaryCert(&rsa.PublicKey{N: big.NewInt(0), E: 65537})))
	f.Add([]byte{licenseErrorAlert, 3, 16, 0, 7, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{licensePlatformChal, 3, 0, 0, 0, 0, 0, 0, 9, 0, 1, 0, 7})
	f.Fuzz(func(t *testing.T, b []byte) {
		l := &licensing{}
		l.handle(b)
		if l.encKey != nil {
			l.handle(b)
		}
	})
}
