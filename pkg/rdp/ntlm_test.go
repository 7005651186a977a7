package rdp

import (
	"bytes"
	"encoding/hex"
	"testing"
	"time"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The NTLMv2 example of MS-NLMP 4.2.4 (user "User", domain "Domain",
// password "Password").
func TestNTOWFv2KnownAnswer(t *testing.T) {
	got := ntowfv2("Password", "User", "Domain")
	if want := unhex(t, "0c868a403bfd7a93a3001ef22ef02e3f"); !bytes.Equal(got, want) {
		t.Fatalf("NTOWFv2 = %x, want %x", got, want)
	}
}

func TestNTProofStrKnownAnswer(t *testing.T) {
	key := ntowfv2("Password", "User", "Domain")
	ti := unhex(t, "02000c0044006f006d00610069006e0001000c0053006500720076006500720000000000")
	var temp writer
	temp.bytes([]byte{1, 1, 0, 0, 0, 0, 0, 0})
	temp.zeros(8)
	temp.bytes(bytes.Repeat([]byte{0xaa}, 8))
	temp.u32(0)
	temp.bytes(ti[:len(ti)-4])
	temp.u32(0)
	temp.u32(0)
	proof := hmacMD5(key, unhex(t, "0123456789abcdef"), temp.b)
	if want := unhex(t, "68cd0ab851e51c96aabc927bebef6a1c"); !bytes.Equal(proof, want) {
		t.Fatalf("NTProofStr = %x, want %x", proof, want)
	}
	if base, want := hmacMD5(key, proof), unhex(t, "8de40ccadbc14a82f15cb0ad0de95ca3"); !bytes.Equal(base, want) {
		t.Fatalf("session base key = %x, want %x", base, want)
	}
}

func challengeMessage(flags uint32, ti []byte) []byte {
	var w writer
	w.bytes(ntlmSignature)
	w.u32(2)
	w.u16(0)
	w.u16(0)
	w.u32(56)
	w.u32(flags)
	w.bytes([]byte{1, 2, 3, 4, 5, 6, 7, 8})
	w.zeros(8)
	w.u16(uint16(len(ti)))
	w.u16(uint16(len(ti)))
	w.u32(56)
	w.bytes(ntlmVersion)
	w.bytes(ti)
	return w.b
}

func TestParseNTLMChallenge(t *testing.T) {
	ts := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	var ti writer
	ti.u16(2)
	ti.u16(4)
	ti.bytes([]byte{'D', 0, 'M', 0})
	ti.u16(avTimestamp)
	ti.u16(8)
	ti.bytes(ts)
	ti.u32(0)
	good := challengeMessage(ntlmClientFlags, ti.b)

	c, err := parseNTLMChallenge(good)
	if err != nil {
		t.Fatal(err)
	}
	if c.Flags != ntlmClientFlags || !bytes.Equal(c.Challenge[:], []byte{1, 2, 3, 4, 5, 6, 7, 8}) ||
		!bytes.Equal(c.Timestamp, ts) || !bytes.Equal(c.TargetInfo, ti.b) {
		t.Fatalf("parsed %+v", c)
	}

	bad := map[string][]byte{
		"empty":           nil,
		"short":           good[:20],
		"bad signature":   append([]byte("NTLMSSX\x00"), good[8:]...),
		"wrong type":      func() []byte { b := bytes.Clone(good); b[8] = 3; return b }(),
		"info past end":   func() []byte { b := bytes.Clone(good); b[40] = 0xFF; return b }(),
		"offset past end": func() []byte { b := bytes.Clone(good); b[44] = 0xFF; b[45] = 0xFF; return b }(),
		"av pair overrun": challengeMessage(0, []byte{2, 0, 0xFF, 0}),
		"oversized":       make([]byte, maxNTLMMessage+1),
	}
	for name, b := range bad {
		if _, err := parseNTLMChallenge(b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// The AUTHENTICATE message lays its payload out where its fields say, and
// sealing round-trips between the two directions' keys.
func TestNTLMAuthenticateLayout(t *testing.T) {
	ch, err := parseNTLMChallenge(challengeMessage(ntlmClientFlags, []byte{0, 0, 0, 0}))
	if err != nil {
		t.Fatal(err)
	}
	neg := ntlmNegotiateMessage()
	a, err := ntlmAuthenticate(neg, ch, "alice", "CORP", "pw", time.Unix(1700000000, 0))
	if err != nil {
		t.Fatal(err)
	}
	m := a.Message
	field := func(i int) []byte {
		r := newReader("", m[12+8*i:])
		n := int(r.u16())
		r.u16()
		off := int(r.u32())
		return m[off : off+n]
	}
	if got := decodeUTF16(field(3)); got != "alice" {
		t.Errorf("user field %q", got)
	}
	if got := decodeUTF16(field(2)); got != "CORP" {
		t.Errorf("domain field %q", got)
	}
	if len(field(5)) != 16 {
		t.Errorf("encrypted session key of %d bytes", len(field(5)))
	}
	// The server's view: a twin with the same keys unseals what we seal,
	// message after message (the RC4 state and sequence carry over).
	cc, ec := bytes.Repeat([]byte{1}, 8), bytes.Repeat([]byte{2}, 16)
	x, _ := ntlmAuthenticateWith(neg, ch, "alice", "CORP", "pw", time.Unix(0, 0), cc, bytes.Clone(ec))
	y, _ := ntlmAuthenticateWith(neg, ch, "alice", "CORP", "pw", time.Unix(0, 0), cc, bytes.Clone(ec))
	srv := &ntlmAuth{serverSign: y.clientSign, serverSeal: y.clientSeal}
	for _, msg := range []string{"hello", "", "second message"} {
		got, err := srv.unseal(x.seal([]byte(msg)))
		if err != nil || string(got) != msg {
			t.Fatalf("unseal(seal(%q)) = %q, %v", msg, got, err)
		}
	}
	tampered := x.seal([]byte("abc"))
	tampered[17] ^= 1
	if _, err := srv.unseal(tampered); err == nil {
		t.Fatal("a tampered message unsealed")
	}
}

func FuzzNTLMChallenge(f *testing.F) {
	f.Add(challengeMessage(ntlmClientFlags, []byte{7, 0, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0}))
	f.Add([]byte("NTLMSSP\x00\x02\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := parseNTLMChallenge(b)
		if err != nil {
			return
		}
		neg := ntlmNegotiateMessage()
		if _, err := ntlmAuthenticate(neg, c, "u", "d", "p", time.Unix(0, 0)); err != nil {
			t.Fatal(err)
		}
		withMICFlag(c.TargetInfo)
	})
}
