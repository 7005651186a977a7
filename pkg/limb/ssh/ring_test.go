package ssh

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

func TestRingTable(t *testing.T) {
	cases := []struct {
		name     string
		size     int
		writes   []string
		since    uint64
		max      int
		want     string
		wantNext uint64
		wantLost int64
		wantErr  bool
	}{
		{"empty", 8, nil, 0, 0, "", 0, 0, false},
		{"simple", 8, []string{"abc"}, 0, 0, "abc", 3, 0, false},
		{"from cursor", 8, []string{"abc", "def"}, 3, 0, "def", 6, 0, false},
		{"wrapped", 4, []string{"abcdef"}, 0, 0, "cdef", 6, 2, false},
		{"wrapped across writes", 4, []string{"abc", "def"}, 1, 0, "cdef", 6, 1, false},
		{"max", 8, []string{"abcdef"}, 0, 2, "ab", 2, 0, false},
		{"future cursor", 8, []string{"ab"}, 5, 0, "", 2, 0, true},
		{"cursor at end", 8, []string{"ab"}, 2, 0, "", 2, 0, false},
		{"max cuts a rune", 16, []string{"aé"}, 0, 2, "a", 1, 0, false},
		{"oversize write", 3, []string{"x", "0123456789"}, 0, 0, "789", 11, 8, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := NewRing(c.size)
			for _, w := range c.writes {
				r.Write([]byte(w))
			}
			data, next, lost, err := r.Read(c.since, c.max)
			if (err != nil) != c.wantErr {
				t.Fatalf("err %v", err)
			}
			if err != nil {
				return
			}
			if string(data) != c.want || next != c.wantNext || lost != c.wantLost {
				t.Fatalf("got %q next %d lost %d; want %q %d %d", data, next, lost, c.want, c.wantNext, c.wantLost)
			}
		})
	}
}

// FuzzRing checks the ring against a plain byte slice for any sequence of
// writes and reads.
func FuzzRing(f *testing.F) {
	f.Add(uint8(4), []byte("hello, world"), uint16(3), uint16(5))
	f.Add(uint8(1), []byte("é漢字"), uint16(0), uint16(2))
	f.Add(uint8(16), []byte{0xff, 0xfe, 0xe6, 0xbc}, uint16(1), uint16(3))
	f.Fuzz(func(t *testing.T, size uint8, data []byte, since uint16, max uint16) {
		r := NewRing(int(size) + 1)
		var all []byte
		for i := 0; i < len(data); i += 3 { // writes of varying length
			end := min(len(data), i+1+int(data[i])%7)
			r.Write(data[i:end])
			all = append(all, data[i:end]...)
			i = end - 3
		}
		got, next, lost, err := r.Read(uint64(since), int(max))
		if uint64(since) > uint64(len(all)) {
			if err == nil {
				t.Fatal("future cursor accepted")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		start := uint64(since) + uint64(lost)
		if next != start+uint64(len(got)) || next > uint64(len(all)) {
			t.Fatalf("next %d start %d len %d total %d", next, start, len(got), len(all))
		}
		if !bytes.Equal(got, all[start:next]) {
			t.Fatalf("data mismatch")
		}
		if max > 0 && len(got) > int(max) {
			t.Fatalf("read %d > max %d", len(got), max)
		}
		if max == 0 && next != uint64(len(all)) {
			t.Fatalf("unbounded read stopped early")
		}
		if max > 0 && len(got) >= utf8.UTFMax && utf8.Valid(all[start:]) && !utf8.Valid(got) {
			t.Fatalf("cut inside a rune: %q", got)
		}
	})
}
