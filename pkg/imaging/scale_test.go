package imaging

import (
	"bytes"
	"errors"
	"image"
	"image/jpeg"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

// naiveBox is the reference area filter: plain loops over each output
// pixel's source block.
func naiveBox(img *image.RGBA, ow, oh int) *image.RGBA {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	dst := image.NewRGBA(image.Rect(0, 0, ow, oh))
	for oy := 0; oy < oh; oy++ {
		for ox := 0; ox < ow; ox++ {
			x0, x1 := ox*w/ow, (ox+1)*w/ow
			y0, y1 := oy*h/oh, (oy+1)*h/oh
			var sum [3]int
			for y := y0; y < y1; y++ {
				for x := x0; x < x1; x++ {
					for c := 0; c < 3; c++ {
						sum[c] += int(img.Pix[y*img.Stride+4*x+c])
					}
				}
			}
			area := (x1 - x0) * (y1 - y0)
			for c := 0; c < 3; c++ {
				dst.Pix[oy*dst.Stride+4*ox+c] = byte((sum[c] + area/2) / area)
			}
			dst.Pix[oy*dst.Stride+4*ox+3] = 0xff
		}
	}
	return dst
}

func TestScaleMatchesReference(t *testing.T) {
	t.Parallel()
	sizes := [][2]int{{1, 1}, {2, 2}, {3, 7}, {8, 8}, {17, 9}, {640, 480}, {1024, 768}, {1366, 768}, {801, 601}}
	scales := []float64{1, 0.75, 0.5, 0.333, 0.25, 0.1, 0.001}
	for _, sz := range sizes {
		img := randomImage(sz[0], sz[1], 7)
		for _, s := range scales {
			got := Scale(img.Pix, img.Stride, sz[0], sz[1], s)
			ow, oh := ScaledSize(sz[0], sz[1], s)
			if got == nil || got.Rect.Dx() != ow || got.Rect.Dy() != oh {
				t.Fatalf("%v scale %v: got %v, want %dx%d", sz, s, got, ow, oh)
			}
			want := naiveBox(img, ow, oh)
			if !bytes.Equal(got.Pix, want.Pix) {
				t.Errorf("%v scale %v: differs from the reference area filter", sz, s)
			}
		}
	}
}

func TestScaleStrideAndFlat(t *testing.T) {
	t.Parallel()
	big := desktopScene(500, 400, 9)
	sub := big.SubImage(image.Rect(10, 10, 410, 330)).(*image.RGBA)
	got := Scale(sub.Pix, sub.Stride, 400, 320, 0.5)
	want := naiveBox(copyRGBA(sub), 200, 160)
	if !bytes.Equal(got.Pix, want.Pix) {
		t.Error("scaling a sub-image differs from scaling its copy")
	}
	// A flat colour stays exactly that colour.
	flat := image.NewRGBA(image.Rect(0, 0, 123, 45))
	fill(flat, flat.Rect, colorOf(10, 200, 99))
	out := Scale(flat.Pix, flat.Stride, 123, 45, 0.37)
	for i := 0; i < len(out.Pix); i += 4 {
		if out.Pix[i] != 10 || out.Pix[i+1] != 200 || out.Pix[i+2] != 99 || out.Pix[i+3] != 0xff {
			t.Fatalf("flat colour changed to %v", out.Pix[i:i+4])
		}
	}
}

func TestScaleRefuses(t *testing.T) {
	img := randomImage(4, 4, 1)
	for _, s := range []float64{0, -1, 1.01, 2} {
		if Scale(img.Pix, img.Stride, 4, 4, s) != nil {
			t.Errorf("scale %v accepted", s)
		}
	}
	if Scale(img.Pix, img.Stride, 0, 4, 0.5) != nil {
		t.Error("empty image accepted")
	}
}

func TestCrop(t *testing.T) {
	img := desktopScene(300, 200, 11)
	tests := []struct {
		r    image.Rectangle
		want image.Rectangle
	}{
		{image.Rect(0, 0, 300, 200), image.Rect(0, 0, 300, 200)},
		{image.Rect(10, 20, 210, 120), image.Rect(10, 20, 210, 120)},
		{image.Rect(-5, -5, 10, 10), image.Rect(0, 0, 10, 10)},
		{image.Rect(290, 190, 400, 400), image.Rect(290, 190, 300, 200)},
		{image.Rect(299, 199, 300, 200), image.Rect(299, 199, 300, 200)},
	}
	for _, tt := range tests {
		sub, w, h, err := Crop(img.Pix, img.Stride, 300, 200, tt.r)
		if err != nil || w != tt.want.Dx() || h != tt.want.Dy() {
			t.Fatalf("Crop(%v) = %dx%d, %v; want %v", tt.r, w, h, err, tt.want)
		}
		var buf bytes.Buffer
		if err := EncodePNG(&buf, sub, img.Stride, w, h, PNGOptions{}); err != nil {
			t.Fatal(err)
		}
		ref := img.SubImage(tt.want).(*image.RGBA)
		checkPNG(t, buf.Bytes(), ref.Pix, ref.Stride, w, h)
	}
	for _, r := range []image.Rectangle{image.Rect(300, 0, 310, 10), image.Rect(-10, -10, 0, 0), {}} {
		if _, _, _, err := Crop(img.Pix, img.Stride, 300, 200, r); err == nil {
			t.Errorf("Crop(%v) accepted", r)
		}
	}
}

func TestEncodeJPEG(t *testing.T) {
	img := desktopScene(321, 123, 12)
	var buf bytes.Buffer
	if err := EncodeJPEG(&buf, img.Pix, img.Stride, 321, 123, 0); err != nil {
		t.Fatal(err)
	}
	dec, err := jpeg.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if dec.Bounds().Dx() != 321 || dec.Bounds().Dy() != 123 {
		t.Fatalf("decoded %v", dec.Bounds())
	}
	// Lossy, so compare the mean colour of the title-bar-free background corner.
	r, g, b, _ := dec.At(2, 2).RGBA()
	if d := absDiff(r>>8, 0x2e) + absDiff(g>>8, 0x4a) + absDiff(b>>8, 0x6b); d > 24 {
		t.Errorf("corner colour off by %d", d)
	}
	for _, q := range []int{-1, 101} {
		if err := EncodeJPEG(&buf, img.Pix, img.Stride, 321, 123, q); err == nil {
			t.Errorf("quality %d accepted", q)
		}
	}
	if err := EncodeJPEG(&buf, img.Pix, img.Stride, 321, 0, 80); err == nil {
		t.Error("zero height accepted")
	}
}

func TestEncodeCache(t *testing.T) {
	var c EncodeCache
	var calls atomic.Int32
	enc := func(s string) func() ([]byte, error) {
		return func() ([]byte, error) { calls.Add(1); return []byte(s), nil }
	}
	k1 := CacheKey{Seq: 1, Region: image.Rect(0, 0, 10, 10), Scale: 1, Format: "png"}
	if b, _ := c.GetOrEncode(k1, enc("a")); string(b) != "a" {
		t.Fatalf("got %q", b)
	}
	if b, _ := c.GetOrEncode(k1, enc("b")); string(b) != "a" || calls.Load() != 1 {
		t.Fatalf("second call encoded again: %q, %d calls", b, calls.Load())
	}
	if b, ok := c.Get(k1); !ok || string(b) != "a" {
		t.Fatal("Get missed a finished entry")
	}
	k1s := k1
	k1s.Scale = 0.5
	c.GetOrEncode(k1s, enc("half"))
	if calls.Load() != 2 {
		t.Fatal("a different scale shared the entry")
	}
	// A newer frame drops the older frame's encodings.
	k2 := k1
	k2.Seq = 2
	c.GetOrEncode(k2, enc("c"))
	if _, ok := c.Get(k1); ok {
		t.Error("old frame still cached after a newer one")
	}
	// Failures are not kept.
	boom := errors.New("boom")
	k3 := k2
	k3.Format = "jpeg"
	if _, err := c.GetOrEncode(k3, func() ([]byte, error) { return nil, boom }); err != boom {
		t.Fatalf("err = %v", err)
	}
	if b, err := c.GetOrEncode(k3, enc("j")); err != nil || string(b) != "j" {
		t.Fatalf("retry after failure: %q, %v", b, err)
	}
	// Capacity bounds the entries.
	small := EncodeCache{Entries: 2}
	for i := 0; i < 5; i++ {
		k := k1
		k.Region = image.Rect(0, 0, i+1, 1)
		small.GetOrEncode(k, enc("x"))
	}
	if len(small.entries) != 2 {
		t.Errorf("%d entries held, capacity 2", len(small.entries))
	}
}

func TestEncodeCacheConcurrent(t *testing.T) {
	var c EncodeCache
	var calls atomic.Int32
	release := make(chan struct{})
	k := CacheKey{Seq: 5, Format: "png"}
	var wg sync.WaitGroup
	results := make([]string, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, _ := c.GetOrEncode(k, func() ([]byte, error) {
				calls.Add(1)
				<-release
				return []byte("frame"), nil
			})
			results[i] = string(b)
		}()
	}
	// Let the waiters pile up on the one in-flight encoding.
	for calls.Load() == 0 {
		runtimeGosched()
	}
	close(release)
	wg.Wait()
	if calls.Load() != 1 {
		t.Errorf("%d encodings for one key", calls.Load())
	}
	for i, r := range results {
		if r != "frame" {
			t.Errorf("caller %d got %q", i, r)
		}
	}
}

// The strip-parallel JPEG must decode (by image/jpeg) to exactly what one
// encoding of the whole picture decodes to.
func TestEncodeJPEGStripsMatchSingle(t *testing.T) {
	t.Parallel()
	for _, sz := range [][2]int{{1024, 768}, {700, 1000}, {333, 2000}} {
		img := desktopScene(sz[0], sz[1], 13)
		single, err := encodeJPEG(nil, img, 80)
		if err != nil {
			t.Fatal(err)
		}
		want, err := jpeg.Decode(bytes.NewReader(single))
		if err != nil {
			t.Fatal(err)
		}
		for _, strips := range []int{2, 3, 10} {
			var buf bytes.Buffer
			if err := encodeJPEGStrips(&buf, img, 80, strips); err != nil {
				t.Fatal(err)
			}
			got, err := jpeg.Decode(&buf)
			if err != nil {
				t.Fatalf("%v %d strips: %v", sz, strips, err)
			}
			if got.Bounds() != want.Bounds() {
				t.Fatalf("%v: bounds %v, want %v", sz, got.Bounds(), want.Bounds())
			}
			g, w := got.(*image.YCbCr), want.(*image.YCbCr)
			if !bytes.Equal(g.Y, w.Y) || !bytes.Equal(g.Cb, w.Cb) || !bytes.Equal(g.Cr, w.Cr) {
				t.Errorf("%v %d strips: decoded pixels differ from a single encoding", sz, strips)
			}
		}
	}
}

func TestJPEGStrips(t *testing.T) {
	tests := []struct{ w, h, workers, want int }{
		{1920, 1080, 1, 1},
		{1920, 1080, 2, 2},
		{1920, 1080, 64, 23}, // 31 strips of pixels, rounded to whole MCU rows
		{100, 100, 8, 1},     // too small to split
		{32768, 4096, 4, 9},  // the 16-bit restart interval forces more strips
		{32768, 32768, 1, 1},
	}
	for _, tt := range tests {
		got := jpegStrips(tt.w, tt.h, tt.workers)
		if got != tt.want {
			t.Errorf("jpegStrips(%d, %d, %d) = %d, want %d", tt.w, tt.h, tt.workers, got, tt.want)
		}
		mcuRows := (tt.h + 15) / 16
		perStrip := (mcuRows + got - 1) / got
		if got > 1 && (tt.w+15)/16*perStrip > 0xffff {
			t.Errorf("%dx%d: restart interval overflows", tt.w, tt.h)
		}
	}
}

// The multiply-shift divider must round exactly like (n + area/2) / area
// for every sum an area of 8-bit samples can reach.
func TestDividerExact(t *testing.T) {
	t.Parallel()
	check := func(area, n uint64) {
		d := newDivider(area)
		if got, want := d.round(n), (n+area/2)/area; got != want {
			t.Fatalf("area %d sum %d: got %d, want %d", area, n, got, want)
		}
	}
	for area := uint64(1); area <= 300; area++ {
		for n := uint64(0); n <= 255*area; n++ {
			check(area, n)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20000; i++ {
		area := 1 + rng.Uint64N(1<<21)
		max := 255 * area
		for _, n := range []uint64{0, max, max - 1, area - 1, area, area / 2, rng.Uint64N(max + 1)} {
			check(area, n)
		}
	}
}
