package rfbserver

import "image"

// Telling photographs from text, for Tight: JPEG where the viewer allows
// it and the area is photographic, lossless everywhere else.

// colourSet counts the distinct colours of a rectangle up to 256 and
// numbers them in order of appearance: a small open-addressing table, as a
// map would cost more than the encoding.
type colourSet struct {
	keys  [1024]uint32
	index [1024]int16 // 0: empty, else palette index + 1
	list  []uint32
	count [256]int32  // pixels counted of each palette colour
	row   []colourRun // the last row walked, counted again when a row repeats
}

// colourRun is a run of one palette colour along a row.
type colourRun struct {
	idx int16
	n   int32
}

func (s *colourSet) reset() {
	clear(s.index[:])
	clear(s.count[:len(s.list)])
	s.list = s.list[:0]
}

// tally counts a run of n pixels of palette colour idx (-1: a colour past
// the 256th, not counted).
func (s *colourSet) tally(idx, n int) {
	if idx < 0 {
		return
	}
	s.count[idx] += int32(n)
	s.row = append(s.row, colourRun{int16(idx), int32(n)})
}

// dominant is the pixel count of the most common colour counted.
func (s *colourSet) dominant() int {
	m := int32(0)
	for _, n := range s.count[:len(s.list)] {
		m = max(m, n)
	}
	return int(m)
}

// add returns c's palette index, or -1 once there are more than 256.
func (s *colourSet) add(c uint32) int {
	h := (c * 0x9e3779b1) >> 22
	for {
		switch {
		case s.index[h] == 0:
			if len(s.list) == 256 {
				return -1
			}
			s.list = append(s.list, c)
			s.keys[h], s.index[h] = c, int16(len(s.list))
			return len(s.list) - 1
		case s.keys[h] == c:
			return int(s.index[h]) - 1
		}
		h = (h + 1) & 1023
	}
}

// looksPhotographic: many colours, seldom repeated along a row, none of
// them common (a photograph, video, noise). Text has few colours and long
// runs of background; dense anti-aliased text can have many colours and
// short runs, but its background still covers a good part of the area
// (about half in `ls -l` in a smoothed font), where no colour of a
// photograph covers more than a few percent.
func looksPhotographic(colours int, overflow bool, runs, dominant, pixels int) bool {
	return (overflow || colours > 64) && runs*4 > pixels && dominant*4 < pixels
}

// splitPhoto cuts pixel rectangles where their 64-pixel tile columns turn
// from photographic to not, and marks the photographic parts, so a
// photograph beside text goes as JPEG and the text stays lossless.
func (e *encoder) splitPhoto(rects []rectOut, buf frameReader) []rectOut {
	if e.colours == nil {
		e.colours = &colourSet{}
	}
	out := rects[:0:0]
	for _, r := range rects {
		if r.enc != 0 {
			out = append(out, r)
			continue
		}
		start, startPhoto := r.r.Min.X, false
		e.read(buf, func(pix []byte, stride int) { // one rectangle: at most a tile row
			for x := r.r.Min.X; x < r.r.Max.X; x += tile {
				t := image.Rect(x, r.r.Min.Y, min(x+tile, r.r.Max.X), r.r.Max.Y)
				p := e.tilePhotographic(pix, stride, t)
				if x == r.r.Min.X {
					startPhoto = p
				} else if p != startPhoto {
					out = append(out, rectOut{r: image.Rect(start, r.r.Min.Y, x, r.r.Max.Y), photo: startPhoto})
					start, startPhoto = x, p
				}
			}
		})
		out = append(out, rectOut{r: image.Rect(start, r.r.Min.Y, r.r.Max.X, r.r.Max.Y), photo: startPhoto})
	}
	return out
}

// tilePhotographic classifies a tile from every other row: half the
// reading, and a photograph or text shows as such on either half.
func (e *encoder) tilePhotographic(pix []byte, stride int, t image.Rectangle) bool {
	set := e.colours
	set.reset()
	row0 := t.Min.Y*stride + t.Min.X*4
	runs, many := countRuns(set, pix[row0:], stride, t.Dx(), 0, t.Dy(), 2)
	return looksPhotographic(len(set.list), many, runs, set.dominant(), t.Dx()*((t.Dy()+1)/2))
}
