package vtscreen

import (
	"encoding/binary"
	"math/rand"
	"testing"
)

// TestPrintable8 checks the 8-bytes-at-a-time test against a byte loop:
// every byte value in every position among printable neighbours, and
// random words (mostly printable, some not).
func TestPrintable8(t *testing.T) {
	slow := func(b []byte) bool {
		for _, c := range b {
			if c < 0x20 || c > 0x7e {
				return false
			}
		}
		return true
	}
	check := func(b []byte) {
		if got, want := printable8(binary.LittleEndian.Uint64(b)), slow(b); got != want {
			t.Fatalf("printable8(%q) = %v, want %v", b, got, want)
		}
	}
	r := rand.New(rand.NewSource(1))
	for pos := 0; pos < 8; pos++ {
		for v := 0; v < 256; v++ {
			for _, fill := range []byte{0x20, 'a', 0x7e, 0x1f, 0x7f, 0x80, 0xff, 0x00} {
				b := []byte{fill, fill, fill, fill, fill, fill, fill, fill}
				b[pos] = byte(v)
				check(b)
			}
		}
	}
	for i := 0; i < 1_000_000; i++ {
		var b [8]byte
		for j := range b {
			if r.Intn(10) == 0 {
				b[j] = byte(r.Intn(256))
			} else {
				b[j] = byte(0x20 + r.Intn(0x5f))
			}
		}
		check(b[:])
	}
}
