package ocr

import "image"

// inkDelta is how far from the paper a pixel must be to count as ink.
const inkDelta = 64

// maxComponents bounds the frame search in a block (noise, photographs).
const maxComponents = 8192

// eraseFrames paints over, in a block's upscaled copy, every connected
// stroke of ink that encloses two or more others: a button's outline, a
// text field's box, a window border. The engine takes a button row with
// its outlines for a picture and reads nothing; without them it reads the
// labels. The mask is of the source block (unscaled); dst holds the
// upscaled block at p with stride w.
func eraseFrames(g *gray, r image.Rectangle, paper uint8, s int, dst []byte, w int, p image.Point, white byte) {
	label, frames, _ := findFrames(g, r, paper, 2)
	if len(frames) == 0 {
		return
	}
	bw := r.Dx()
	for i, id := range label {
		if id == 0 || !frames[id] {
			continue
		}
		x, y := i%bw, i/bw
		for oy := 0; oy < s; oy++ {
			row := dst[(p.Y+y*s+oy)*w+p.X+x*s:]
			for ox := 0; ox < s; ox++ {
				row[ox] = white
			}
		}
	}
}

// findFrames labels the block's connected strokes of ink (8-connected,
// ink being more than inkDelta from the paper; label is indexed by the
// block's own pixels, 0 for paper) and says which are frames: strokes
// larger than a glyph, mostly paper inside their box, that enclose at
// least minInside others. Plates are filled shapes larger than a glyph
// with holes of paper inside (a coloured button with a light label: the
// label is a hole, not ink), by label, with their boxes in the block's
// pixels. Nil when the block holds too many strokes to search (noise, a
// photograph).
func findFrames(g *gray, r image.Rectangle, paper uint8, minInside int) (label []int32, frames map[int32]bool, plates map[int32]image.Rectangle) {
	label, boxes, sizes, ok := labelInk(g, r, paper)
	if !ok {
		return nil, nil, nil
	}
	frames, plates = classifyComponents(label, r.Dx(), boxes, sizes, minInside)
	return label, frames, plates
}

// labelInk labels the ink of r (what differs from paper) by connected
// component, 8-connected, from 1: each component's box and its count of
// pixels. Not ok past maxComponents.
func labelInk(g *gray, r image.Rectangle, paper uint8) (label []int32, boxes []image.Rectangle, sizes []int, ok bool) {
	bw, bh := r.Dx(), r.Dy()
	label = make([]int32, bw*bh)
	ink := func(x, y int) bool {
		v := int(g.pix[(r.Min.Y+y)*g.w+r.Min.X+x])
		d := v - int(paper)
		return d > inkDelta || d < -inkDelta
	}
	var stack []int
	for i := range label {
		if label[i] != 0 || !ink(i%bw, i/bw) {
			continue
		}
		if len(boxes) >= maxComponents {
			return nil, nil, nil, false
		}
		n := 0
		id := int32(len(boxes) + 1)
		box := image.Rect(i%bw, i/bw, i%bw+1, i/bw+1)
		label[i] = id
		stack = append(stack[:0], i)
		for len(stack) > 0 {
			j := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			x, y := j%bw, j/bw
			n++
			box = box.Union(image.Rect(x, y, x+1, y+1))
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					nx, ny := x+dx, y+dy
					if nx < 0 || ny < 0 || nx >= bw || ny >= bh {
						continue
					}
					k := ny*bw + nx
					if label[k] == 0 && ink(nx, ny) {
						label[k] = id
						stack = append(stack, k)
					}
				}
			}
		}
		boxes, sizes = append(boxes, box), append(sizes, n)
	}
	return label, boxes, sizes, true
}

// classifyComponents tells the frames among the components (outlines
// around at least minInside others) and the plates (filled shapes with
// holes inside: a label on a button).
func classifyComponents(label []int32, bw int, boxes []image.Rectangle, sizes []int, minInside int) (frames map[int32]bool, plates map[int32]image.Rectangle) {
	for i, b := range boxes {
		if b.Dx() < 12 || b.Dy() < 10 {
			continue // glyph-sized: never a frame
		}
		if sizes[i]*3 > b.Dx()*b.Dy() {
			// A filled shape (a toolbar, a coloured button), not an
			// outline: a plate when its inside has holes (a label).
			if b.Dx() >= 20 && b.Dy() >= 14 && rimmed(label, bw, b, int32(i+1)) && hasHoles(label, bw, b.Inset(2), int32(i+1)) {
				if plates == nil {
					plates = map[int32]image.Rectangle{}
				}
				plates[int32(i+1)] = b
			}
			continue
		}
		inside := 0
		for j, o := range boxes {
			if j != i && o.In(b) && o != b {
				inside++
			}
		}
		if inside < minInside {
			continue
		}
		if frames == nil {
			frames = map[int32]bool{}
		}
		frames[int32(i+1)] = true
	}
	return frames, plates
}

// rimmed reports whether stroke id runs unbroken along the inside of its
// box, 2 pixels in from each side (rounded corners left out): a button
// has a band of its colour all round its label; a bold glyph with a
// counter ("P", "o") does not.
func rimmed(label []int32, bw int, b image.Rectangle, id int32) bool {
	for x := b.Min.X + 4; x < b.Max.X-4; x++ {
		if label[(b.Min.Y+2)*bw+x] != id || label[(b.Max.Y-3)*bw+x] != id {
			return false
		}
	}
	for y := b.Min.Y + 4; y < b.Max.Y-4; y++ {
		if label[y*bw+b.Min.X+2] != id || label[y*bw+b.Max.X-3] != id {
			return false
		}
	}
	return true
}

// hasHoles reports whether at least 3 % (and 8) of the pixels in r are
// not stroke id: a label drawn through a filled shape.
func hasHoles(label []int32, bw int, r image.Rectangle, id int32) bool {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if label[y*bw+x] != id {
				n++
			}
		}
	}
	return n >= 8 && n*100 >= 3*r.Dx()*r.Dy()
}
