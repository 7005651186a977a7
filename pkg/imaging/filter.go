package imaging

// PNG filter types (PNG spec, section 9.2).
const (
	filterNone  = 0
	filterSub   = 1
	filterUp    = 2
	filterPaeth = 4
	// filterAuto picks Sub or Up per row, whichever gives the smaller sum
	// of absolute residuals (the usual PNG heuristic, limited to two cheap
	// candidates).
	filterAuto = -1
)

// defaultFilter is the row filter EncodePNG uses; the choice was measured
// on desktop scenes (see docs/benchmarks.md).
var defaultFilter = filterUp

// filterRow writes one PNG scanline (filter byte + RGB bytes) for the RGBA
// row cur into dst, using prev (the RGBA row above, nil on the first row).
// dst must hold 1+3*width bytes. It returns the filter used.
func filterRow(dst, cur, prev []byte, width, filter int) {
	if prev == nil && filter == filterUp {
		filter = filterNone // Up against a zero row is None
	}
	if filter == filterAuto {
		filter = chooseFilter(cur, prev, width)
	}
	dst[0] = byte(filter)
	out := dst[1 : 1+3*width]
	cur = cur[:4*width]
	switch filter {
	case filterNone:
		for x, o := 0, 0; x < len(cur); x, o = x+4, o+3 {
			out[o], out[o+1], out[o+2] = cur[x], cur[x+1], cur[x+2]
		}
	case filterSub:
		var pr, pg, pb byte
		for x, o := 0, 0; x < len(cur); x, o = x+4, o+3 {
			r, g, b := cur[x], cur[x+1], cur[x+2]
			out[o], out[o+1], out[o+2] = r-pr, g-pg, b-pb
			pr, pg, pb = r, g, b
		}
	case filterUp:
		prev = prev[:len(cur)]
		for x, o := 0, 0; x < len(cur); x, o = x+4, o+3 {
			out[o], out[o+1], out[o+2] = cur[x]-prev[x], cur[x+1]-prev[x+1], cur[x+2]-prev[x+2]
		}
	case filterPaeth:
		filterPaethRow(out, cur, prev)
	}
}

func filterPaethRow(out, cur, prev []byte) {
	var a, c [3]byte
	for x, o := 0, 0; x < len(cur); x, o = x+4, o+3 {
		for i := 0; i < 3; i++ {
			var b byte
			if prev != nil {
				b = prev[x+i]
			}
			out[o+i] = cur[x+i] - paeth(a[i], b, c[i])
			a[i], c[i] = cur[x+i], b
		}
	}
}

func paeth(a, b, c byte) byte {
	p := int(a) + int(b) - int(c)
	pa, pb, pc := abs(p-int(a)), abs(p-int(b)), abs(p-int(c))
	if pa <= pb && pa <= pc {
		return a
	}
	if pb <= pc {
		return b
	}
	return c
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// chooseFilter compares Sub and Up residual sums on a sample of the row.
func chooseFilter(cur, prev []byte, width int) int {
	if prev == nil {
		return filterSub
	}
	var sub, up int
	step := 4
	if width > 256 {
		step = 16 // every 4th pixel is enough to tell flat from textured
	}
	for x := 4; x < 4*width; x += step {
		for i := 0; i < 3; i++ {
			sub += absByte(cur[x+i] - cur[x-4+i])
			up += absByte(cur[x+i] - prev[x+i])
		}
	}
	if up <= sub {
		return filterUp
	}
	return filterSub
}

// absByte is the PNG heuristic's |residual| for a residual taken as signed.
func absByte(b byte) int {
	v := int(int8(b))
	if v < 0 {
		return -v
	}
	return v
}
