package bitmap

import "image"

// DecodePointer builds a cursor image from a pointer update's XOR and AND masks.
func DecodePointer(xorBpp, w, h int, xorMask, andMask []byte, pal *Palette) (*image.RGBA, error) {
	return nil, corrupt("not implemented")
}
