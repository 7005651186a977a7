package imaging

import (
	"bytes"
	"image"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
)

// realDesktop starts an Xvnc of the given size with a coloured root window,
// xterms full of text and a clock, and returns the X server's own capture.
func realDesktop(t testing.TB, w, h int) (*image.RGBA, *testbed.VNC) {
	t.Helper()
	testbed.Need(t, "Xvnc", "xterm", "xsetroot", "xclock", "import")
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: w, Height: h})
	v.Run(t, "xsetroot", "-solid", "#3a5f7f")
	cols, rows := w/14, h/36
	v.Background(t, "xterm", "-geometry", geometry(cols, rows, 10, 10), "-e", "sh", "-c", "ls -l /usr/bin; exec sleep 600")
	v.Background(t, "xterm", "-geometry", geometry(cols, rows, w/2, h/3), "-bg", "black", "-fg", "green",
		"-e", "sh", "-c", "ls -lR /usr/share/doc | head -400; exec sleep 600")
	v.Background(t, "xclock", "-geometry", "200x200-20+20", "-update", "600")
	var img *image.RGBA
	testbed.Eventually(t, 20*time.Second, "xterms to draw their text", func() bool {
		img = v.Capture(t)
		return colourCount(img) >= 8 && dissimilarShare(img, 0x3a, 0x5f, 0x7f) > 0.25
	})
	return img, v
}

func geometry(cols, rows, x, y int) string {
	return itoa(cols) + "x" + itoa(rows) + "+" + itoa(x) + "+" + itoa(y)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func colourCount(img *image.RGBA) int {
	seen := map[[3]byte]bool{}
	for i := 0; i < len(img.Pix) && len(seen) < 64; i += 4 * 97 {
		seen[[3]byte{img.Pix[i], img.Pix[i+1], img.Pix[i+2]}] = true
	}
	return len(seen)
}

// dissimilarShare is the share of pixels not of the background colour.
func dissimilarShare(img *image.RGBA, r, g, b byte) float64 {
	var other, n int
	for i := 0; i < len(img.Pix); i += 4 * 13 {
		n++
		if img.Pix[i] != r || img.Pix[i+1] != g || img.Pix[i+2] != b {
			other++
		}
	}
	return float64(other) / float64(n)
}

// A real screen (text antialiasing, xterm scrollbars, a clock face) must
// survive the parallel encoder exactly, whole, scaled and cropped.
func TestEncodePNGRealDesktop(t *testing.T) {
	t.Parallel()
	img, _ := realDesktop(t, 1280, 720)
	for _, workers := range []int{1, 2, 5} {
		var buf bytes.Buffer
		if err := EncodePNG(&buf, img.Pix, img.Stride, 1280, 720, PNGOptions{Workers: workers}); err != nil {
			t.Fatal(err)
		}
		checkPNG(t, buf.Bytes(), img.Pix, img.Stride, 1280, 720)
	}
	half := Scale(img.Pix, img.Stride, 1280, 720, 0.5)
	if !bytes.Equal(half.Pix, naiveBox(img, 640, 360).Pix) {
		t.Error("0.5 scale of the real desktop differs from the reference filter")
	}
	sub, w, h, err := Crop(img.Pix, img.Stride, 1280, 720, image.Rect(5, 5, 205, 105))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := EncodePNG(&buf, sub, img.Stride, w, h, PNGOptions{}); err != nil {
		t.Fatal(err)
	}
	ref := img.SubImage(image.Rect(5, 5, 205, 105)).(*image.RGBA)
	checkPNG(t, buf.Bytes(), ref.Pix, ref.Stride, w, h)
}
