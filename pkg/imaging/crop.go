package imaging

import (
	"fmt"
	"image"
)

// Crop narrows pixels to the rectangle r, clipped to the image, without
// copying: the result shares pix and keeps stride. It fails when r misses
// the image entirely.
func Crop(pix []byte, stride, width, height int, r image.Rectangle) (sub []byte, w, h int, err error) {
	if err := checkImage(pix, stride, width, height); err != nil {
		return nil, 0, 0, err
	}
	c := r.Intersect(image.Rect(0, 0, width, height))
	if c.Empty() {
		return nil, 0, 0, fmt.Errorf("imaging: region %v lies outside the %dx%d image", r, width, height)
	}
	start := c.Min.Y*stride + 4*c.Min.X
	end := (c.Max.Y-1)*stride + 4*c.Max.X
	return pix[start:end:end], c.Dx(), c.Dy(), nil
}
