package imaging

import (
	"errors"
	"fmt"
	"image"
	"io"
)

// Errors Render reports for requests the caller should refuse as malformed
// (BAD_REQUEST) or out of bounds (OUT_OF_BOUNDS). Test with errors.Is.
var (
	ErrBadScale      = errors.New("scale must be above 0 and at most 1")
	ErrBadFormat     = errors.New("format must be png or jpeg")
	ErrRegionOutside = errors.New("region lies outside the framebuffer")
)

// Formats Render accepts.
const (
	FormatPNG  = "png"
	FormatJPEG = "jpeg"
)

// Request says what picture to make of a frame.
type Request struct {
	Region  image.Rectangle // framebuffer pixels; the zero rectangle means the whole frame
	Scale   float64         // 0 or 1: native size
	Format  string          // FormatPNG (also the default for "") or FormatJPEG ("jpg" too)
	Quality int             // JPEG quality 1..100 (0: DefaultJPEGQuality); PNG deflate level (0: fast)
	Workers int             // PNG strips compressed at once; 0: GOMAXPROCS
}

// Result describes the picture Render wrote, so an agent can map image
// pixels back to framebuffer pixels. Sides are rounded to whole pixels, so
// the exact map is fb.x = Region.Min.X + img.x * Region.Dx() / Width (and
// likewise for y); img / Scale is within a pixel of it.
type Result struct {
	Region        image.Rectangle // the region encoded, clipped to the frame
	Scale         float64
	Width, Height int    // of the encoded image
	MIME          string // image/png or image/jpeg
}

// normalize validates the request against a frame size and fills defaults.
func (q Request) normalize(width, height int) (Request, error) {
	frame := image.Rect(0, 0, width, height)
	if q.Region == (image.Rectangle{}) {
		q.Region = frame
	}
	q.Region = q.Region.Canon().Intersect(frame)
	if q.Region.Empty() {
		return q, fmt.Errorf("imaging: %w (%dx%d): pick a region inside it", ErrRegionOutside, width, height)
	}
	if q.Scale == 0 {
		q.Scale = 1
	}
	if !(q.Scale > 0 && q.Scale <= 1) {
		return q, fmt.Errorf("imaging: %w, got %v", ErrBadScale, q.Scale)
	}
	switch q.Format {
	case "", FormatPNG:
		q.Format = FormatPNG
	case FormatJPEG, "jpg":
		q.Format = FormatJPEG
	default:
		return q, fmt.Errorf("imaging: %w, got %q", ErrBadFormat, q.Format)
	}
	return q, nil
}

// Key is the cache key of this request for a frame of the given size at
// damage sequence seq.
func (q Request) Key(seq uint64, width, height int) CacheKey {
	n, err := q.normalize(width, height)
	if err != nil {
		n = q // an invalid request is never cached; keep the key distinct
	}
	return CacheKey{Seq: seq, Region: n.Region, Scale: n.Scale, Format: n.Format, Quality: n.Quality}
}

// Render crops, scales and encodes one picture of the frame.
func Render(w io.Writer, pix []byte, stride, width, height int, q Request) (Result, error) {
	if err := checkImage(pix, stride, width, height); err != nil {
		return Result{}, err
	}
	q, err := q.normalize(width, height)
	if err != nil {
		return Result{}, err
	}
	sub, cw, ch, err := Crop(pix, stride, width, height, q.Region)
	if err != nil {
		return Result{}, err
	}
	if q.Scale < 1 {
		img := Scale(sub, stride, cw, ch, q.Scale)
		sub, stride, cw, ch = img.Pix, img.Stride, img.Rect.Dx(), img.Rect.Dy()
	}
	res := Result{Region: q.Region, Scale: q.Scale, Width: cw, Height: ch}
	if q.Format == FormatJPEG {
		res.MIME = "image/jpeg"
		return res, EncodeJPEG(w, sub, stride, cw, ch, q.Quality)
	}
	res.MIME = "image/png"
	return res, EncodePNG(w, sub, stride, cw, ch, PNGOptions{Level: q.Quality, Workers: q.Workers})
}
