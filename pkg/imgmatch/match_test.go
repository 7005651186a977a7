package imgmatch

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"syscall"
	"testing"
)

// scene is a frame with a soft gradient and some noise, like a desktop
// background, and a "button" drawn at a known place.
func scene(w, h int, seed uint64) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(seed, 1))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := uint8(60 + (x+y)%64 + r.IntN(4))
			img.SetRGBA(x, y, color.RGBA{v, v + 10, v + 30, 0xff})
		}
	}
	return img
}

func button(img *image.RGBA, at image.Point) {
	for y := 0; y < 24; y++ {
		for x := 0; x < 70; x++ {
			c := color.RGBA{230, 230, 230, 0xff}
			if x == 0 || y == 0 || x == 69 || y == 23 {
				c = color.RGBA{40, 40, 40, 0xff}
			} else if y > 8 && y < 16 && x > 20 && x < 50 && (x+y)%3 == 0 {
				c = color.RGBA{0, 0, 0, 0xff} // "text"
			}
			img.SetRGBA(at.X+x, at.Y+y, c)
		}
	}
}

func crop(img *image.RGBA, r image.Rectangle) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	for y := 0; y < r.Dy(); y++ {
		copy(out.Pix[y*out.Stride:], img.Pix[(r.Min.Y+y)*img.Stride+r.Min.X*4:(r.Min.Y+y)*img.Stride+r.Max.X*4])
	}
	return out
}

func TestSearch(t *testing.T) {
	frame := scene(400, 300, 1)
	button(frame, image.Pt(213, 147))
	tmpl, err := NewTemplate(crop(frame, image.Rect(213, 147, 283, 171)))
	if err != nil {
		t.Fatal(err)
	}
	noisy := scene(400, 300, 1)
	button(noisy, image.Pt(213, 147))
	for i := 0; i < len(noisy.Pix); i += 4 { // a lossy re-encode: every colour off by 6
		for c := 0; c < 3; c++ {
			noisy.Pix[i+c] = noisy.Pix[i+c] ^ 6
		}
	}
	absent := scene(400, 300, 1)
	all := image.Rect(0, 0, 400, 300)
	cases := []struct {
		name      string
		frame     *image.RGBA
		corners   image.Rectangle
		threshold float64
		want      image.Point
		found     bool
		minScore  float64
	}{
		{"exact", frame, all, 0.95, image.Pt(213, 147), true, 1},
		{"damage around it", frame, Corners(image.Rect(250, 160, 260, 170), 70, 24), 0.95, image.Pt(213, 147), true, 1},
		{"damage elsewhere", frame, Corners(image.Rect(10, 10, 30, 30), 70, 24), 0.95, image.Point{}, false, 0},
		{"near colours pass a loose threshold", noisy, all, 0.95, image.Pt(213, 147), true, 0.97},
		{"but not a strict one", noisy, all, 0.99999, image.Point{}, false, 0},
		{"not drawn", absent, all, 0.9, image.Point{}, false, 0},
		{"threshold 0 takes the best place", absent, all, 0, image.Point{}, true, 0},
		{"corners outside the frame", frame, image.Rect(500, 500, 600, 600), 0.5, image.Point{}, false, 0},
	}
	for _, c := range cases {
		m, ok := tmpl.Search(c.frame.Pix, c.frame.Stride, 400, 300, c.corners, c.threshold)
		if ok != c.found || (ok && c.name != "threshold 0 takes the best place" && m.At != c.want) || (ok && m.Score < c.minScore) {
			t.Errorf("%s: %+v found=%v, want %v found=%v score≥%v", c.name, m, ok, c.want, c.found, c.minScore)
		}
		if ok && (m.Score < 0 || m.Score > 1 || !m.Box(tmpl).In(all)) {
			t.Errorf("%s: %+v out of range", c.name, m)
		}
	}
}

func TestTemplateSize(t *testing.T) {
	for _, r := range []image.Rectangle{image.Rect(0, 0, 0, 5), image.Rect(0, 0, MaxSide+1, 1)} {
		if _, err := NewTemplate(image.NewRGBA(r)); err != ErrTemplateSize {
			t.Errorf("%v: %v", r, err)
		}
	}
	big, _ := NewTemplate(scene(50, 50, 3))
	small := scene(40, 40, 2)
	if _, ok := big.Search(small.Pix, small.Stride, 40, 40, image.Rect(0, 0, 40, 40), 0); ok {
		t.Error("a template larger than the frame was found")
	}
}

// darkScreen is a mostly black frame (a terminal, a dark theme) with a
// few light marks where draw puts them.
func darkScreen(w, h int, draw func(img *image.RGBA)) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = 8, 8, 8, 0xff
	}
	draw(img)
	return img
}

func mark(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, y, c)
		}
	}
}

// TestDarkTemplateDoesNotMatchAnotherDarkScreen: a template cut from a
// mostly black screen with a little detail (a short label) scores far
// below the threshold on another mostly black screen whose detail is
// elsewhere, though most of their pixels are equal; on its own screen it
// is found where it was cut, at 1.
func TestDarkTemplateDoesNotMatchAnotherDarkScreen(t *testing.T) {
	light := color.RGBA{220, 220, 220, 0xff}
	a := darkScreen(400, 300, func(img *image.RGBA) {
		for i := range 6 { // a "word": six letter strokes
			mark(img, image.Rect(130+i*6, 110, 133+i*6, 122), light)
		}
	})
	b := darkScreen(400, 300, func(img *image.RGBA) {
		mark(img, image.Rect(20, 250, 380, 254), light) // a status bar line
		mark(img, image.Rect(300, 30, 340, 60), color.RGBA{40, 90, 200, 0xff})
	})
	tmpl, err := NewTemplate(crop(a, image.Rect(100, 90, 220, 150)))
	if err != nil {
		t.Fatal(err)
	}
	all := image.Rect(0, 0, 400, 300)
	if m, ok := tmpl.Search(b.Pix, b.Stride, 400, 300, all, 0.95); ok {
		t.Errorf("found on an unrelated dark screen: %+v", m)
	}
	if m, ok := tmpl.Search(b.Pix, b.Stride, 400, 300, all, 0); ok && m.Score > 0.5 {
		t.Errorf("the best place on an unrelated dark screen scores %.3f", m.Score)
	}
	if m, ok := tmpl.Search(a.Pix, a.Stride, 400, 300, all, 0.95); !ok || m.At != image.Pt(100, 90) || m.Score < 0.999 {
		t.Errorf("on its own screen: %+v found=%v, want at 100,90 score 1", m, ok)
	}
}

// TestFlatTemplateIsRefused: a template of one colour, or one colour with
// a speck, has nothing to be found by.
func TestFlatTemplateIsRefused(t *testing.T) {
	one := darkScreen(60, 40, func(*image.RGBA) {})
	speck := darkScreen(60, 40, func(img *image.RGBA) { mark(img, image.Rect(30, 20, 32, 22), color.RGBA{255, 255, 255, 0xff}) })
	for name, img := range map[string]*image.RGBA{"one colour": one, "a speck": speck} {
		_, err := NewTemplate(img)
		var flat *FlatError
		if !errors.As(err, &flat) {
			t.Errorf("%s: %v, want a FlatError", name, err)
		}
	}
}

func FuzzSearch(f *testing.F) {
	var buf bytes.Buffer
	png.Encode(&buf, crop(scene(20, 10, 3), image.Rect(0, 0, 5, 4)))
	f.Add(buf.Bytes(), uint16(30), uint16(20), int16(-3), int16(2), uint8(200))
	f.Fuzz(func(t *testing.T, tpng []byte, w, h uint16, cx, cy int16, thr uint8) {
		img, err := png.Decode(bytes.NewReader(tpng))
		if err != nil || img.Bounds().Dx()*img.Bounds().Dy() > 4096 {
			return
		}
		tmpl, err := NewTemplate(img)
		if err != nil {
			return
		}
		fw, fh := int(w%64)+1, int(h%64)+1
		frame := scene(fw, fh, uint64(w))
		corners := image.Rect(int(cx), int(cy), int(cx)+40, int(cy)+40)
		m, ok := tmpl.Search(frame.Pix, frame.Stride, fw, fh, corners, float64(thr)/255)
		if ok && (m.Score < float64(thr)/255-1e-9 || m.Score > 1 || !m.Box(tmpl).In(frame.Bounds())) {
			t.Fatalf("match %+v in %dx%d", m, fw, fh)
		}
	})
}

// BenchmarkSearch1080p is a full-frame search (the first look) and a
// search around one dialog-sized damage rectangle (every later look).
func BenchmarkSearch1080p(b *testing.B) {
	frame := scene(1920, 1080, 4)
	button(frame, image.Pt(1400, 900))
	tmpl, _ := NewTemplate(crop(frame, image.Rect(1400, 900, 1470, 924)))
	absent := scene(1920, 1080, 4)
	b.Run("full-frame-absent", func(b *testing.B) {
		cpu := cpuTime()
		for b.Loop() {
			tmpl.Search(absent.Pix, absent.Stride, 1920, 1080, image.Rect(0, 0, 1920, 1080), 0.95)
		}
		b.ReportMetric(float64(cpuTime()-cpu)/1e6/float64(b.N), "cpu-ms/op")
	})
	b.Run("damage-400x300", func(b *testing.B) {
		c := Corners(image.Rect(760, 390, 1160, 690), 70, 24)
		cpu := cpuTime()
		for b.Loop() {
			tmpl.Search(absent.Pix, absent.Stride, 1920, 1080, c, 0.95)
		}
		b.ReportMetric(float64(cpuTime()-cpu)/1e6/float64(b.N), "cpu-ms/op")
	})
}

// cpuTime is the process's user+system CPU time in nanoseconds: on a
// shared machine it measures the work where wall time measures the queue.
func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
