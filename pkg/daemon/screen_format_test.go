package daemon

import "testing"

// With format auto, an out path that names an image type takes the
// extension of the format chosen; any other path is written as given.
func TestAutoFormatOutExtension(t *testing.T) {
	for _, c := range []struct{ path, format, want string }{
		{"/tmp/a.png", "jpeg", "/tmp/a.jpg"},
		{"/tmp/a.jpg", "png", "/tmp/a.png"},
		{"/tmp/a.JPEG", "jpeg", "/tmp/a.jpg"},
		{"/tmp/a.png", "png", "/tmp/a.png"},
		{"/tmp/shot", "jpeg", "/tmp/shot"},
		{"/tmp/a.img", "png", "/tmp/a.img"},
	} {
		if got := withExtension(c.path, c.format); got != c.want {
			t.Errorf("withExtension(%q, %q) = %q, want %q", c.path, c.format, got, c.want)
		}
	}
}
