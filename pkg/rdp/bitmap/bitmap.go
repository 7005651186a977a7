// Package bitmap decodes the bitmap formats an RDP server sends: uncompressed
// bitmaps, interleaved RLE (MS-RDPBCGR 2.2.9.1.1.3.1.2.4), RDP 6.0 planar
// (MS-RDPEGDI 2.2.2.5.1) and pointer shapes (MS-RDPBCGR 2.2.9.1.1.4).
//
// Every decoder writes RGBA pixels (R, G, B, A byte order) top-down into a
// caller-owned buffer, so a decoded tile can be copied straight into a
// framebuffer mirror. Malformed input yields an error wrapping ErrCorrupt; no
// decoder panics, writes outside dst or allocates in proportion to anything
// but the stated bitmap size.
package bitmap

import (
	"errors"
	"fmt"
)

// Palette is the colour table for 8 bpp bitmaps, as sent in a palette update.
type Palette [256][3]uint8

// ErrCorrupt is wrapped by every error caused by malformed input.
var ErrCorrupt = errors.New("rdp bitmap: corrupt data")

// MaxSide bounds width and height of any bitmap accepted by this package.
const MaxSide = 16384

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

// checkDst validates the geometry and the destination buffer shared by all
// decoders.
func checkDst(w, h int, dst []byte, stride int) error {
	if w <= 0 || h <= 0 || w > MaxSide || h > MaxSide {
		return corrupt("size %dx%d outside 1..%d", w, h, MaxSide)
	}
	if stride < 4*w {
		return fmt.Errorf("rdp bitmap: stride %d below 4*width %d; pass a larger stride", stride, 4*w)
	}
	if len(dst) < stride*(h-1)+4*w {
		return fmt.Errorf("rdp bitmap: dst holds %d bytes, needs %d for %dx%d at stride %d; allocate stride*height", len(dst), stride*(h-1)+4*w, w, h, stride)
	}
	return nil
}
