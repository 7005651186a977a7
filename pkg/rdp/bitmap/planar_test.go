package bitmap

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// planarOpts selects the planar features the test encoder uses.
type planarOpts struct {
	rle, alpha, cs bool
	cll            int
	pad            bool
}

// encodePlanar is a test-only RDP 6.0 planar encoder. rgba is top-down RGBA;
// planes go out bottom-up. With cll > 0 it applies the forward transform of
// MS-RDPEGDI 3.1.9.1.2 (and, without alpha, the red/blue swap servers do);
// with cs it keeps the chroma of the first pixel of each 2x2 block.
func encodePlanar(rgba []byte, w, h int, o planarOpts, rng *rand.Rand) []byte {
	hdr := byte(o.cll)
	if o.cs {
		hdr |= planarCS
	}
	if o.rle {
		hdr |= planarRLE
	}
	if !o.alpha {
		hdr |= planarNA
	}
	cw, ch := w, h
	if o.cs {
		cw, ch = (w+1)/2, (h+1)/2
	}
	a, p0 := make([]byte, w*h), make([]byte, w*h)
	p1, p2 := make([]byte, cw*ch), make([]byte, cw*ch)
	for row := 0; row < h; row++ { // wire order
		for x := 0; x < w; x++ {
			i := 4 * ((h-1-row)*w + x)
			r, g, b := int(rgba[i]), int(rgba[i+1]), int(rgba[i+2])
			a[row*w+x] = rgba[i+3]
			if o.cll == 0 {
				p0[row*w+x], p1[row*w+x], p2[row*w+x] = byte(r), byte(g), byte(b)
				continue
			}
			if !o.alpha {
				r, b = b, r
			}
			y := (r + 2*g + b) >> 2
			co := (r - b) >> o.cll
			cg := (2*g - r - b) >> 1 >> o.cll
			p0[row*w+x] = byte(y)
			cx, cy := x, row
			if o.cs {
				if x%2 != 0 || row%2 != 0 {
					continue
				}
				cx, cy = x/2, row/2
			}
			p1[cy*cw+cx], p2[cy*cw+cx] = byte(co), byte(cg)
		}
	}
	out := []byte{hdr}
	planes := [][3]int{{0, w, h}, {1, cw, ch}, {2, cw, ch}}
	data := [][]byte{p0, p1, p2}
	if o.alpha {
		planes = append([][3]int{{3, w, h}}, planes...)
		data = append([][]byte{a}, data...)
	}
	for i, pl := range planes {
		if o.rle {
			out = append(out, encodePlaneRLE(data[i], pl[1], pl[2], rng)...)
		} else {
			out = append(out, data[i]...)
		}
	}
	if o.pad {
		out = append(out, 0)
	}
	return out
}

// encodePlaneRLE writes one plane as RDP6 RLE segments: deltas after the
// first scanline, raw stretches of up to 15 values, runs of three or more.
func encodePlaneRLE(plane []byte, w, h int, rng *rand.Rand) []byte {
	var out []byte
	vals := make([]byte, w)
	for row := 0; row < h; row++ {
		for x := 0; x < w; x++ {
			v := plane[row*w+x]
			if row > 0 {
				d := int(int8(v - plane[(row-1)*w+x]))
				if d >= 0 {
					v = byte(2 * d)
				} else {
					v = byte(-2*d - 1)
				}
			}
			vals[x] = v
		}
		x := 0
		for x < w {
			// Raw values up to one that three more copies follow; that
			// value is the last raw one and its copies become the run.
			k := 0
			for x+k < w && k < 15 {
				v := vals[x+k]
				k++
				if x+k+2 < w && vals[x+k] == v && vals[x+k+1] == v && vals[x+k+2] == v {
					break
				}
			}
			raw := vals[x : x+k]
			last := raw[k-1]
			x += k
			run := 0
			for x+run < w && vals[x+run] == last && run < 15 {
				run++
			}
			if rng != nil && run > 3 && rng.IntN(3) == 0 {
				run = 3 + rng.IntN(run-2)
			}
			if run < 3 {
				run = 0
			}
			out = append(out, byte(k)<<4|byte(run))
			out = append(out, raw...)
			x += run
			// Longer runs go on in segments without raw values.
			for {
				n := 0
				for x+n < w && vals[x+n] == last && n < 47 {
					n++
				}
				if n < 3 {
					break
				}
				switch {
				case n < 16:
					out = append(out, byte(n))
				case n < 32:
					out = append(out, byte(n-16)<<4|1)
				default:
					out = append(out, byte(n-32)<<4|2)
				}
				x += n
			}
		}
	}
	return out
}

// testRGBA makes top-down RGBA test images.
func testRGBA(w, h int, alpha bool, f func(x, y int) (r, g, b, a byte)) []byte {
	out := make([]byte, 4*w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r, g, b, a := f(x, y)
			if !alpha {
				a = 0xff
			}
			copy(out[4*(y*w+x):], []byte{r, g, b, a})
		}
	}
	return out
}

func planarImages(rng *rand.Rand, blocks bool) map[string]struct {
	w, h int
	f    func(x, y int) (r, g, b, a byte)
} {
	type img = struct {
		w, h int
		f    func(x, y int) (r, g, b, a byte)
	}
	noise := make([]byte, 4*200*200)
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	// With blocks, every 2x2 block of the wire (bottom-up) order has one
	// colour, so chroma subsampling loses nothing but the colour loss.
	bx := func(x, y, h int) (int, int) {
		if blocks {
			return x &^ 1, h - 1 - (h-1-y)&^1
		}
		return x, y
	}
	return map[string]img{
		"1x1":  {1, 1, func(x, y int) (byte, byte, byte, byte) { return 200, 100, 50, 128 }},
		"flat": {64, 64, func(x, y int) (byte, byte, byte, byte) { return 0x3a, 0x6e, 0xa5, 0xff }},
		"noise": {37, 21, func(x, y int) (byte, byte, byte, byte) {
			x, y = bx(x, y, 21)
			i := 4 * (y*37 + x)
			return noise[i], noise[i+1], noise[i+2], noise[i+3]
		}},
		"window": {99, 45, func(x, y int) (byte, byte, byte, byte) {
			x, y = bx(x, y, 45)
			if x > 10 && x < 80 && y > 5 && y < 40 {
				if (x*3+y)%7 == 0 {
					return 0, 0, 0, 0xff
				}
				return 250, 250, 250, 0xff
			}
			return 30, 80, byte(120 + y), 0x80
		}},
		"gradient": {64, 35, func(x, y int) (byte, byte, byte, byte) {
			x, y = bx(x, y, 35)
			return byte(4 * x), byte(7 * y), byte(x + y), byte(255 - x)
		}},
		"wide": {200, 3, func(x, y int) (byte, byte, byte, byte) {
			x, y = bx(x, y, 3)
			return byte(x / 50 * 60), 0, byte(y * 80), 0xff
		}},
	}
}

func TestPlanarRoundTripLossless(t *testing.T) {
	for seed := uint64(0); seed < 4; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		for name, im := range planarImages(rng, false) {
			for _, o := range []planarOpts{{}, {alpha: true}, {rle: true}, {rle: true, alpha: true}, {pad: true}} {
				want := testRGBA(im.w, im.h, o.alpha, im.f)
				var encRng *rand.Rand
				if seed > 0 {
					encRng = rng
				}
				src := encodePlanar(want, im.w, im.h, o, encRng)
				got := make([]byte, len(want))
				if err := DecodePlanar(src, im.w, im.h, got, 4*im.w); err != nil {
					t.Fatalf("%s %+v: %v", name, o, err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("%s %+v: differ at byte %d", name, o, firstDiff(got, want))
				}
			}
		}
	}
}

// TestPlanarRoundTripYCoCg checks the lossy forms stay within the error the
// colour loss level allows (chroma loses cll bits, luma rounds down).
func TestPlanarRoundTripYCoCg(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, cs := range []bool{false, true} {
		for name, im := range planarImages(rng, cs) {
			for cll := 1; cll <= 7; cll++ {
				for _, o := range []planarOpts{{cll: cll, cs: cs}, {cll: cll, cs: cs, alpha: true, rle: true}, {cll: cll, cs: cs, rle: true}} {
					want := testRGBA(im.w, im.h, o.alpha, im.f)
					src := encodePlanar(want, im.w, im.h, o, rng)
					got := make([]byte, len(want))
					if err := DecodePlanar(src, im.w, im.h, got, 4*im.w); err != nil {
						t.Fatalf("%s %+v: %v", name, o, err)
					}
					tol := 1<<cll + 2
					for i := range got {
						d := int(got[i]) - int(want[i])
						if d < -tol || d > tol {
							t.Fatalf("%s %+v: byte %d = %d, want %d within %d", name, o, i, got[i], want[i], tol)
						}
					}
				}
			}
		}
	}
}

// TestPlanarSpecPlane decodes the RLE plane example of MS-RDPEGDI 3.1.9.2
// (6x3 values), worked by hand: absolute first scanline, then deltas.
func TestPlanarSpecPlane(t *testing.T) {
	src := []byte{0x13, 0xFF, 0x20, 0xFE, 0xFD, 0x60, 0x01, 0x7D, 0xF5, 0xC2, 0x9A, 0x38, 0x60, 0x01, 0x67, 0x8B, 0xA3, 0x78, 0xAF}
	out := make([]byte, 18)
	rest, err := decodePlaneRLE(src, out, 6, 3)
	if err != nil || len(rest) != 0 {
		t.Fatalf("rest %d, err %v", len(rest), err)
	}
	want := []byte{
		255, 255, 255, 255, 254, 253,
		254, 192, 132, 96, 75, 25,
		253, 140, 62, 14, 135, 193,
	}
	if !bytes.Equal(out, want) {
		t.Fatalf("got %v\nwant %v", out, want)
	}
}

// TestPlanarVectors checks whole bitmaps worked out by hand.
func TestPlanarVectors(t *testing.T) {
	tests := []struct {
		name string
		w, h int
		src  []byte
		want []byte // top-down RGBA
	}{
		{"raw ARGB 2x2 bottom-up", 2, 2,
			[]byte{0x00, // alpha plane present, no RLE
				1, 2, 3, 4, // A
				10, 11, 12, 13, // R
				20, 21, 22, 23, // G
				30, 31, 32, 33}, // B
			[]byte{12, 22, 32, 3, 13, 23, 33, 4, 10, 20, 30, 1, 11, 21, 31, 2}},
		{"raw RGB no alpha with pad", 1, 1,
			[]byte{planarNA, 7, 8, 9, 0},
			[]byte{7, 8, 9, 255}},
		{"YCoCg cll 1 with alpha: (200,100,50)", 1, 1,
			// Y=112, Co=150>>1=75, Cg=-25>>1=-13 (0xF3); alpha 0x80.
			[]byte{1, 0x80, 112, 75, 0xF3},
			[]byte{200, 99, 50, 0x80}},
		{"YCoCg cll 1 without alpha swaps red and blue", 1, 1,
			[]byte{1 | planarNA, 112, 75, 0xF3},
			[]byte{50, 99, 200, 255}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := make([]byte, 4*tt.w*tt.h)
			if err := DecodePlanar(tt.src, tt.w, tt.h, got, 4*tt.w); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tt.want) {
				t.Fatalf("got %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestPlanarRejects(t *testing.T) {
	good := encodePlanar(testRGBA(8, 8, true, func(x, y int) (byte, byte, byte, byte) { return byte(x), byte(y), 3, 4 }), 8, 8, planarOpts{rle: true, alpha: true}, nil)
	raw := encodePlanar(testRGBA(8, 8, true, func(x, y int) (byte, byte, byte, byte) { return byte(x), byte(y), 3, 4 }), 8, 8, planarOpts{alpha: true}, nil)
	tests := []struct {
		name string
		src  []byte
	}{
		{"empty", nil},
		{"cs without cll", []byte{planarCS | planarNA}},
		{"raw too short", raw[:len(raw)-1]},
		{"raw too long", append(append([]byte{}, raw...), 0, 0)},
		{"rle truncated", good[:len(good)-1]},
		{"rle trailing bytes", append(append([]byte{}, good...), 1, 2)},
		{"rle header only", []byte{planarRLE}},
		{"segment overruns scanline", append([]byte{planarRLE | planarNA, 0x0f, 0x0f}, make([]byte, 64)...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := make([]byte, 4*8*8)
			if err := DecodePlanar(tt.src, 8, 8, dst, 32); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("err = %v, want ErrCorrupt", err)
			}
		})
	}
	if err := DecodePlanar(good, 8, 8, make([]byte, 4*8*8), 32); err != nil {
		t.Fatalf("good stream: %v", err)
	}
	// A large bitmap from a tiny stream is refused before planes are allocated.
	big := make([]byte, 4*1000*1000)
	if err := DecodePlanar([]byte{planarRLE, 0x0f}, 1000, 1000, big, 4000); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("err = %v", err)
	}
}

func FuzzPlanar(f *testing.F) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, im := range planarImages(rng, true) {
		for _, o := range []planarOpts{{rle: true}, {alpha: true}, {rle: true, cll: 3, cs: true}, {cll: 2, alpha: true}} {
			f.Add(encodePlanar(testRGBA(im.w, im.h, o.alpha, im.f), im.w, im.h, o, rng), uint16(im.w), uint16(im.h))
		}
	}
	f.Fuzz(func(t *testing.T, src []byte, w, h uint16) {
		W, H := int(w%256)+1, int(h%256)+1
		dst := make([]byte, 4*W*H)
		if err := DecodePlanar(src, W, H, dst, 4*W); err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("error not ErrCorrupt: %v", err)
		}
	})
}
