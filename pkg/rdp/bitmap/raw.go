package bitmap

// DecodeRaw decodes an uncompressed bitmap of bpp 8, 15, 16, 24 or 32.
func DecodeRaw(src []byte, w, h, bpp int, pal *Palette, dst []byte, stride int) error {
	return corrupt("not implemented")
}
