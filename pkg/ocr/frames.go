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
	label, frames := findFrames(g, r, paper, 2)
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
// larger than a glyph that enclose at least minInside others. Nil when
// the block holds too many strokes to search (noise, a photograph).
func findFrames(g *gray, r image.Rectangle, paper uint8, minInside int) (label []int32, frames map[int32]bool) {
	bw, bh := r.Dx(), r.Dy()
	label = make([]int32, bw*bh)
	ink := func(x, y int) bool {
		v := int(g.pix[(r.Min.Y+y)*g.w+r.Min.X+x])
		d := v - int(paper)
		return d > inkDelta || d < -inkDelta
	}
	var boxes []image.Rectangle
	var sizes []int
	var stack []int
	for i := range label {
		if label[i] != 0 || !ink(i%bw, i/bw) {
			continue
		}
		if len(boxes) >= maxComponents {
			return nil, nil
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
	for i, b := range boxes {
		if b.Dx() < 12 || b.Dy() < 10 {
			continue // glyph-sized: never a frame
		}
		if sizes[i]*3 > b.Dx()*b.Dy() {
			continue // a filled shape (a toolbar, a coloured button), not an outline
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
	return label, frames
}
