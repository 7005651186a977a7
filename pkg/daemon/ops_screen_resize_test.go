package daemon

import (
	"image"
	"io/fs"
	"os"
	"testing"

	"github.com/dvvhq/dvv/pkg/fb"
)

// A resize between choosing a screen's region and reading its pixels
// leaves fewer pixels than the region: the picture is what was read, at
// its own size, never an encode past the end of the pixels.
func TestScreenTakenAcrossAShrinkIsThePixelsRead(t *testing.T) {
	for _, scale := range []float64{1, 0.5} {
		buf := fb.New()
		if err := buf.Resize(640, 480); err != nil {
			t.Fatal(err)
		}
		l := &Limb{dsk: &desktopLimb{buf: buf}}
		region := image.Rect(0, 0, 640, 480) // chosen before the shrink
		if err := buf.Resize(10, 100); err != nil {
			t.Fatal(err)
		}
		data, w, h, err := l.encode(region, scale, "png")
		if err != nil {
			t.Fatalf("scale %g: %v", scale, err)
		}
		want := image.Pt(10, 100)
		if scale != 1 {
			want = image.Pt(5, 50)
		}
		if w != want.X || h != want.Y || len(data) == 0 {
			t.Fatalf("scale %g: %dx%d, %d bytes; want %v", scale, w, h, len(data), want)
		}
	}
}

// screen --out /dev/null writes into the device: dvvd running as root
// once renamed a regular file over it, breaking every other program.
func TestScreenOutToACharacterDeviceKeepsTheDevice(t *testing.T) {
	if err := writeFileAtomic(os.DevNull, []byte("picture")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(os.DevNull)
	if err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("%s after the write: %v, %v; want the character device", os.DevNull, fi.Mode(), err)
	}
}
