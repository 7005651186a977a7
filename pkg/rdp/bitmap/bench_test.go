package bitmap

import (
	"math/rand/v2"
	"testing"
)

const (
	sceneW, sceneH = 1024, 768
	tileSide       = 64
)

// desktopScene draws a desktop-like RGBA frame (top-down): flat background,
// two windows with title-bar gradients and text-like strokes, and a noisy
// photo-like panel.
func desktopScene() []byte {
	rng := rand.New(rand.NewPCG(42, 42))
	pix := make([]byte, 4*sceneW*sceneH)
	set := func(x, y int, r, g, b byte) {
		o := 4 * (y*sceneW + x)
		pix[o], pix[o+1], pix[o+2], pix[o+3] = r, g, b, 0xff
	}
	for y := 0; y < sceneH; y++ {
		for x := 0; x < sceneW; x++ {
			set(x, y, 0x1d, 0x5b, 0x8c)
		}
	}
	window := func(x0, y0, w, h int) {
		for y := y0; y < y0+h; y++ {
			for x := x0; x < x0+w; x++ {
				switch {
				case y < y0+24: // title bar gradient
					set(x, y, byte(40+(x-x0)*100/w), byte(60+(x-x0)*80/w), 0xc0)
				case x == x0 || x == x0+w-1 || y == y0+h-1:
					set(x, y, 0x80, 0x80, 0x80)
				default:
					set(x, y, 0xff, 0xff, 0xff)
				}
			}
		}
		// Text lines: runs of dark glyph strokes with gaps.
		for line := y0 + 36; line+12 < y0+h; line += 18 {
			x := x0 + 10
			for x < x0+w-40 {
				word := 20 + rng.IntN(60)
				for gx := x; gx < x+word && gx < x0+w-10; gx++ {
					for gy := line; gy < line+11; gy++ {
						if rng.IntN(3) == 0 {
							set(gx, gy, 0x20, 0x20, 0x20)
						}
					}
				}
				x += word + 8
			}
		}
	}
	window(60, 50, 600, 420)
	window(420, 300, 560, 400)
	// Photo-like panel: smooth gradient plus noise.
	for y := 520; y < 740; y++ {
		for x := 40; x < 380; x++ {
			n := byte(rng.IntN(16))
			set(x, y, byte(x/2)+n, byte(y/3)+n, byte((x+y)/4)+n)
		}
	}
	return pix
}

// toNative converts a top-down RGBA tile of the scene to native pixels in
// wire order at 16 or 24 bpp.
func toNative(scene []byte, tx, ty, w, h, bpp int) []uint32 {
	px := make([]uint32, w*h)
	for row := 0; row < h; row++ {
		y := ty + h - 1 - row
		for x := 0; x < w; x++ {
			o := 4 * (y*sceneW + tx + x)
			r, g, b := uint32(scene[o]), uint32(scene[o+1]), uint32(scene[o+2])
			if bpp == 16 {
				px[row*w+x] = r>>3<<11 | g>>2<<5 | b>>3
			} else {
				px[row*w+x] = r<<16 | g<<8 | b
			}
		}
	}
	return px
}

type encodedTile struct {
	x, y int
	data []byte
}

func sceneTiles(encode func(tx, ty int) []byte) ([]encodedTile, int) {
	var tiles []encodedTile
	total := 0
	for ty := 0; ty < sceneH; ty += tileSide {
		for tx := 0; tx < sceneW; tx += tileSide {
			d := encode(tx, ty)
			total += len(d)
			tiles = append(tiles, encodedTile{tx, ty, d})
		}
	}
	return tiles, total
}

func tileRGBA(scene []byte, tx, ty int) []byte {
	out := make([]byte, 4*tileSide*tileSide)
	for y := 0; y < tileSide; y++ {
		copy(out[4*y*tileSide:], scene[4*((ty+y)*sceneW+tx):4*((ty+y)*sceneW+tx+tileSide)])
	}
	return out
}

func benchTiles(b *testing.B, tiles []encodedTile, wire int, decode func(src, dst []byte, stride int) error) {
	frame := make([]byte, 4*sceneW*sceneH)
	stride := 4 * sceneW
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, t := range tiles {
			if err := decode(t.data, frame[t.y*stride+4*t.x:], stride); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(wire), "wire-B/frame")
}

func BenchmarkInterleavedScene16(b *testing.B) { benchInterleaved(b, 16) }
func BenchmarkInterleavedScene24(b *testing.B) { benchInterleaved(b, 24) }

func benchInterleaved(b *testing.B, bpp int) {
	scene := desktopScene()
	tiles, wire := sceneTiles(func(tx, ty int) []byte {
		return encodeRLE(toNative(scene, tx, ty, tileSide, tileSide, bpp), tileSide, bpp, nil, nil)
	})
	benchTiles(b, tiles, wire, func(src, dst []byte, stride int) error {
		return DecodeInterleaved(src, tileSide, tileSide, bpp, nil, dst, stride)
	})
}

func BenchmarkPlanarSceneRLE(b *testing.B) { benchPlanar(b, planarOpts{rle: true}) }
func BenchmarkPlanarSceneRLEYCoCg(b *testing.B) {
	benchPlanar(b, planarOpts{rle: true, cll: 3, cs: true})
}
func BenchmarkPlanarSceneRaw(b *testing.B) { benchPlanar(b, planarOpts{}) }

func benchPlanar(b *testing.B, o planarOpts) {
	scene := desktopScene()
	tiles, wire := sceneTiles(func(tx, ty int) []byte {
		return encodePlanar(tileRGBA(scene, tx, ty), tileSide, tileSide, o, nil)
	})
	benchTiles(b, tiles, wire, func(src, dst []byte, stride int) error {
		return DecodePlanar(src, tileSide, tileSide, dst, stride)
	})
}

func BenchmarkRawScene32(b *testing.B) {
	scene := desktopScene()
	tiles, wire := sceneTiles(func(tx, ty int) []byte {
		return encodeRaw(toNative(scene, tx, ty, tileSide, tileSide, 24), tileSide, tileSide, 32, false)
	})
	benchTiles(b, tiles, wire, func(src, dst []byte, stride int) error {
		return DecodeRaw(src, tileSide, tileSide, 32, nil, dst, stride)
	})
}

// TestSceneRoundTrip checks the benchmark's tiles decode to the scene, so
// the figures measure correct work.
func TestSceneRoundTrip(t *testing.T) {
	scene := desktopScene()
	frame := make([]byte, len(scene))
	stride := 4 * sceneW
	for ty := 0; ty < sceneH; ty += tileSide {
		for tx := 0; tx < sceneW; tx += tileSide {
			src := encodePlanar(tileRGBA(scene, tx, ty), tileSide, tileSide, planarOpts{rle: true}, nil)
			if err := DecodePlanar(src, tileSide, tileSide, frame[ty*stride+4*tx:], stride); err != nil {
				t.Fatal(err)
			}
			px := toNative(scene, tx, ty, tileSide, tileSide, 24)
			got := make([]byte, 4*tileSide*tileSide)
			if err := DecodeInterleaved(encodeRLE(px, tileSide, 24, nil, nil), tileSide, tileSide, 24, nil, got, 4*tileSide); err != nil {
				t.Fatal(err)
			}
			if want := tileRGBA(scene, tx, ty); string(got) != string(want) {
				t.Fatalf("interleaved tile %d,%d differs", tx, ty)
			}
		}
	}
	if string(frame) != string(scene) {
		t.Fatalf("planar frame differs at byte %d", firstDiff(frame, scene))
	}
}
