package bitmap

// DecodePlanar decodes an RDP 6.0 planar bitmap.
func DecodePlanar(src []byte, w, h int, dst []byte, stride int) error {
	return corrupt("not implemented")
}
