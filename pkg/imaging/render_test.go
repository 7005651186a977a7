package imaging

import (
	"bytes"
	"errors"
	"image"
	"image/jpeg"
	"testing"
)

func TestRender(t *testing.T) {
	img := desktopScene(640, 480, 21)
	tests := []struct {
		q      Request
		region image.Rectangle
		w, h   int
		mime   string
	}{
		{Request{}, image.Rect(0, 0, 640, 480), 640, 480, "image/png"},
		{Request{Scale: 0.5}, image.Rect(0, 0, 640, 480), 320, 240, "image/png"},
		{Request{Region: image.Rect(100, 50, 300, 150)}, image.Rect(100, 50, 300, 150), 200, 100, "image/png"},
		{Request{Region: image.Rect(600, 400, 700, 500), Scale: 0.5}, image.Rect(600, 400, 640, 480), 20, 40, "image/png"},
		{Request{Region: image.Rect(300, 150, 100, 50)}, image.Rect(100, 50, 300, 150), 200, 100, "image/png"}, // corners swapped
		{Request{Format: "jpeg", Quality: 70}, image.Rect(0, 0, 640, 480), 640, 480, "image/jpeg"},
		{Request{Format: "jpg", Scale: 0.25}, image.Rect(0, 0, 640, 480), 160, 120, "image/jpeg"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		res, err := Render(&buf, img.Pix, img.Stride, 640, 480, tt.q)
		if err != nil {
			t.Fatalf("%+v: %v", tt.q, err)
		}
		if res.Region != tt.region || res.Width != tt.w || res.Height != tt.h || res.MIME != tt.mime {
			t.Errorf("%+v: got %+v", tt.q, res)
		}
		if tt.mime == "image/jpeg" {
			if _, err := jpeg.Decode(&buf); err != nil {
				t.Errorf("%+v: %v", tt.q, err)
			}
			continue
		}
		want := img.SubImage(tt.region).(*image.RGBA)
		if tt.q.Scale != 0 && tt.q.Scale != 1 {
			want = naiveBox(copyRGBA(want), tt.w, tt.h)
		}
		checkPNG(t, buf.Bytes(), want.Pix, want.Stride, tt.w, tt.h)
	}
}

func TestRenderRefuses(t *testing.T) {
	img := desktopScene(64, 48, 22)
	tests := []struct {
		q    Request
		want error
	}{
		{Request{Scale: 1.5}, ErrBadScale},
		{Request{Scale: -0.5}, ErrBadScale},
		{Request{Format: "gif"}, ErrBadFormat},
		{Request{Region: image.Rect(64, 0, 80, 10)}, ErrRegionOutside},
		{Request{Region: image.Rect(-10, -10, -1, -1)}, ErrRegionOutside},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		if _, err := Render(&buf, img.Pix, img.Stride, 64, 48, tt.q); !errors.Is(err, tt.want) {
			t.Errorf("%+v: err = %v, want %v", tt.q, err, tt.want)
		}
	}
}

func TestRequestKey(t *testing.T) {
	a := Request{}.Key(7, 640, 480)
	b := Request{Region: image.Rect(0, 0, 640, 480), Scale: 1, Format: "png"}.Key(7, 640, 480)
	if a != b {
		t.Errorf("equivalent requests have different keys: %+v, %+v", a, b)
	}
	if c := (Request{Scale: 0.5}).Key(7, 640, 480); c == a {
		t.Error("scaled request shares the key of the full one")
	}
	if d := (Request{}).Key(8, 640, 480); d == a {
		t.Error("a newer frame shares the key")
	}
}

func TestEncodeCachePanic(t *testing.T) {
	var c EncodeCache
	k := CacheKey{Seq: 1, Format: "png"}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("encoder panic was swallowed")
			}
		}()
		c.GetOrEncode(k, func() ([]byte, error) { panic("broken encoder") })
	}()
	b, err := c.GetOrEncode(k, func() ([]byte, error) { return []byte("ok"), nil })
	if err != nil || string(b) != "ok" {
		t.Errorf("after a panic: %q, %v", b, err)
	}
}
