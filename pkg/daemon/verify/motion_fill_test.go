package verify

import (
	"image"
	"testing"

	"github.com/dvvhq/dvv/pkg/fb"
)

// TestSolidTileHashMatchesPixels: a tile hashed from a known fill hashes
// as the same tile read from the mirror does (edge tiles cut by the
// frame included, black counted as cleared), and tiles the fill covers in
// part, or other damage touches, are left to be read.
func TestSolidTileHashMatchesPixels(t *testing.T) {
	const w, h = 100, 40 // the last tile column 4 wide, the last tile row 8 high
	buf := fb.New()
	buf.Resize(w, h)
	for _, c := range [][4]byte{{12, 200, 99, 255}, {0, 0, 0, 255}} {
		f := fb.Fill{R: image.Rect(0, 0, w, h), C: c}
		pix, stride, _, _ := buf.BeginWrite()
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				copy(pix[y*stride+x*4:], c[:])
			}
		}
		buf.EndWriteFills(nil, []fb.Fill{f})
		var s solidTiles
		buf.Read(func(pix []byte, stride, _, _ int, _ uint64) {
			for ty := 0; ty*fb.TileSize < h; ty++ {
				for tx := 0; tx*fb.TileSize < w; tx++ {
					got, gotClear, ok := s.hash([]fb.Fill{f}, image.Rectangle{}, w, h, tx, ty)
					want, wantClear := hashTile(pix, stride, w, h, tx, ty)
					if !ok || got != want || gotClear != wantClear {
						t.Fatalf("colour %v tile %d,%d: hash %x clear %v ok %v, read %x clear %v", c, tx, ty, got, gotClear, ok, want, wantClear)
					}
				}
			}
		})
		part := fb.Fill{R: image.Rect(5, 0, w, h), C: c}
		if _, _, ok := s.hash([]fb.Fill{part}, image.Rectangle{}, w, h, 0, 0); ok {
			t.Fatal("a tile the fill covers in part was hashed as solid")
		}
		if _, _, ok := s.hash([]fb.Fill{f}, image.Rect(20, 20, 21, 21), w, h, 1, 1); ok {
			t.Fatal("a tile other damage touches was hashed as solid")
		}
		later := fb.Fill{R: image.Rect(0, 0, 8, 8), C: [4]byte{1, 2, 3, 255}}
		if _, _, ok := s.hash([]fb.Fill{f, later}, image.Rectangle{}, w, h, 0, 0); ok {
			t.Fatal("a tile a later fill covers in part was hashed as the earlier fill")
		}
	}
}

// BenchmarkMotionAbsorb: the motion record taking a full 1024x768 change,
// told it was a fill (hashed from the colour) or not (hashed from the
// pixels).
func BenchmarkMotionAbsorb(b *testing.B) {
	for _, fill := range []bool{true, false} {
		name := "pixels"
		if fill {
			name = "fill"
		}
		b.Run(name, func(b *testing.B) {
			buf := fb.New()
			buf.Resize(1024, 768)
			m := newMotion(buf)
			m.absorb()
			b.StopTimer()
			for i := 0; i < b.N; i++ {
				c := [4]byte{byte(i), 2, 3, 255}
				pix, stride, _, _ := buf.BeginWrite()
				for y := 0; y < 768; y++ {
					for x := 0; x < 1024; x++ {
						copy(pix[y*stride+x*4:], c[:])
					}
				}
				if fill {
					buf.EndWriteFills(nil, []fb.Fill{{R: image.Rect(0, 0, 1024, 768), C: c}})
				} else {
					buf.EndWrite(image.Rect(0, 0, 1024, 768))
				}
				b.StartTimer()
				m.absorb()
				b.StopTimer()
			}
		})
	}
}
