package imaging

// FitScale is the largest of 1, 1/2, 1/4 and 1/8 at which a w×h image has
// no edge longer than maxEdge and no more than maxPixels pixels (0 = no
// limit). Halving steps keep the way back to native pixels a shift an agent
// gets right (native = image × 2), where a scale such as 0.8167 invites
// rounding drift. Past 1/8 it returns 1/8: the picture stops being useful.
func FitScale(w, h, maxEdge, maxPixels int) float64 {
	scale := 1.0
	for i := 0; i < 3; i++ {
		sw, sh := ScaledSize(w, h, scale)
		edgeOK := maxEdge <= 0 || (sw <= maxEdge && sh <= maxEdge)
		pixOK := maxPixels <= 0 || sw*sh <= maxPixels
		if edgeOK && pixOK {
			return scale
		}
		scale /= 2
	}
	return scale
}
