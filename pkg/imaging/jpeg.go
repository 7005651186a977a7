package imaging

import (
	"fmt"
	"image"
	"image/jpeg"
	"io"
)

// DefaultJPEGQuality is used when quality is 0.
const DefaultJPEGQuality = 80

// EncodeJPEG writes the RGBA pixels as a baseline JPEG. quality is 1..100;
// 0 means DefaultJPEGQuality.
func EncodeJPEG(w io.Writer, pix []byte, stride, width, height int, quality int) error {
	if err := checkImage(pix, stride, width, height); err != nil {
		return err
	}
	if quality == 0 {
		quality = DefaultJPEGQuality
	}
	if quality < 1 || quality > 100 {
		return fmt.Errorf("imaging: JPEG quality %d out of range 1..100", quality)
	}
	img := &image.RGBA{Pix: pix[:(height-1)*stride+4*width], Stride: stride, Rect: image.Rect(0, 0, width, height)}
	return jpeg.Encode(w, img, &jpeg.Options{Quality: quality})
}
