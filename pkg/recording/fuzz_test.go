package recording

import (
	"bytes"
	"context"
	"testing"
)

// The decoders of what a recordings directory may hold never panic, and
// what they accept stays inside the bounds the players size things by.
func FuzzDecodeCast(f *testing.F) {
	f.Add([]byte(`{"version":2,"width":80,"height":24}` + "\n" + `[0.5,"o","hi"]` + "\n"))
	f.Add([]byte(`{"version":2,"width":1000,"height":1}` + "\n" + `[4294967,"m","x"]` + "\n[1,2]\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		hdr, evs, err := DecodeCast(bytes.NewReader(b))
		if err != nil {
			return
		}
		if hdr.Width < 1 || hdr.Width > maxCastGrid || hdr.Height < 1 || hdr.Height > maxCastGrid {
			t.Fatalf("accepted a %dx%d grid", hdr.Width, hdr.Height)
		}
		for _, e := range evs {
			if !(e.T >= 0 && e.T <= maxCastSeconds) {
				t.Fatalf("accepted an event at %g s", e.T)
			}
		}
	})
}

func FuzzDecodeActs(f *testing.F) {
	f.Add([]byte(`{"t":0.5,"op":"click","action":"left","x":3,"y":4,"outcome":"ok"}` + "\n"))
	f.Add([]byte(`{"t":1,"op":"type","textLen":5,"outcome":"TIMEOUT"}` + "\n{"))
	f.Fuzz(func(t *testing.T, b []byte) {
		acts, _ := DecodeActs(bytes.NewReader(b))
		for _, a := range acts {
			_ = a.Label()
		}
		actsAt(acts, 1)
	})
}

// FuzzPlayFBS: any bytes given as an FBS file make a player, or are
// refused, without a panic, and the player answers its first frame or an
// error (FuzzReadFBS holds the parser alone).
func FuzzPlayFBS(f *testing.F) {
	f.Add(hostileFBS(64, 48, map[uint32][]byte{10: rawRect(0, 0, 8, 8)}))
	f.Add(hostileFBS(16, 16, map[uint32][]byte{20: {0, 0, 0, 1, 0, 0, 0, 0, 0, 32, 0, 32, 0xff, 0xff, 0xff, 0x21}}))
	f.Add([]byte("FBS 001.000\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pl, err := NewPlayer(context.Background(), bytes.NewReader(data))
		if err != nil {
			return
		}
		defer pl.Close()
		pl.Frame(0)
	})
}
