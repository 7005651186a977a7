package bitmap

// DecodeInterleaved decodes an interleaved RLE bitmap of bpp 8, 15, 16 or 24.
func DecodeInterleaved(src []byte, w, h, bpp int, pal *Palette, dst []byte, stride int) error {
	return corrupt("not implemented")
}
