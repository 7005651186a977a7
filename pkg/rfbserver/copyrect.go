package rfbserver

import (
	"encoding/binary"
	"hash/maphash"
	"image"
)

// minScrollRows is the smallest band worth a CopyRect.
const minScrollRows = 32

// rowHash is row y of area as one hash: the row's tile column hashes (as
// the viewer has them, or the frame's when pix is given) combined, each
// mixed with its column so equal segments in two columns do not cancel.
func (e *encoder) rowHash(pix []byte, stride, y int, area image.Rectangle) uint64 {
	var acc uint64
	for c := area.Min.X / tile; c < (area.Max.X+tile-1)/tile; c++ {
		h := e.sums[y*e.cols+c]
		if pix != nil {
			h = maphash.Bytes(seed, e.segment(pix, stride, y, c))
		}
		acc += mix(h ^ uint64(c)*0x9e3779b97f4a7c15)
	}
	return acc
}

// mix is a 64-bit finaliser (splitmix64's).
func mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// findScroll looks for a vertical scroll inside area: a band of rows the
// viewer already has, only moved. When it finds one it moves the band's
// hashes as the viewer will move its pixels and returns the CopyRect,
// which must be sent before any other rectangle of the update (it reads
// the viewer's framebuffer as it was) but the fills already recorded in
// the hashes. area is tile-aligned.
func (e *encoder) findScroll(buf frameReader, area image.Rectangle) (rectOut, bool) {
	if area.Dy() < minScrollRows*2 || area.Dx() < tile {
		return rectOut{}, false
	}
	// The viewer's rows cost no pixel reading; the frame's rows are hashed
	// only as the search needs them (0: not yet), so a change that is no
	// scroll (a new picture) costs three rows, not the area.
	top := area.Min.Y
	e.oldRows = e.oldRows[:0]
	for y := area.Min.Y; y < area.Max.Y; y++ {
		e.oldRows = append(e.oldRows, e.rowHash(nil, 0, y, area))
	}
	if cap(e.newRows) < area.Dy() {
		e.newRows = make([]uint64, area.Dy())
	}
	e.newRows = e.newRows[:area.Dy()]
	clear(e.newRows)
	newRow := func(y int) uint64 {
		if e.newRows[y-top] == 0 {
			e.read(buf, func(pix []byte, stride int) { e.newRows[y-top] = e.rowHash(pix, stride, y, area) })
		}
		return e.newRows[y-top]
	}
	oldRow := func(y int) uint64 { return e.oldRows[y-top] }
	for _, probe := range []int{area.Min.Y + area.Dy()/2, area.Min.Y + area.Dy()/4, area.Min.Y + 3*area.Dy()/4} {
		if newRow(probe) == oldRow(probe) {
			continue // unchanged here: no evidence of a move
		}
		tried := 0
		for src := area.Min.Y; src < area.Max.Y && tried < 8; src++ {
			if src == probe || newRow(probe) != oldRow(src) {
				continue
			}
			tried++
			dy := src - probe
			y0, y1 := probe, probe+1
			for y0 > area.Min.Y && y0-1+dy >= area.Min.Y && newRow(y0-1) == oldRow(y0-1+dy) {
				y0--
			}
			for y1 < area.Max.Y && y1+dy < area.Max.Y && newRow(y1) == oldRow(y1+dy) {
				y1++
			}
			if e.w < 0 {
				return rectOut{}, false // resized meanwhile
			}
			if y1-y0 < minScrollRows {
				continue
			}
			e.moveRows(area, y0, y1, dy)
			data := binary.BigEndian.AppendUint16(nil, uint16(area.Min.X))
			data = binary.BigEndian.AppendUint16(data, uint16(y0+dy))
			return rectOut{r: image.Rect(area.Min.X, y0, area.Max.X, y1), enc: encCopyRect, data: data}, true
		}
	}
	return rectOut{}, false
}

// moveRows makes rows y0..y1 of area's columns hold the hashes of the rows
// dy below, in the order that reads each source before it is overwritten.
func (e *encoder) moveRows(area image.Rectangle, y0, y1, dy int) {
	c0, c1 := area.Min.X/tile, (area.Max.X+tile-1)/tile
	move := func(y int) { copy(e.sums[y*e.cols+c0:y*e.cols+c1], e.sums[(y+dy)*e.cols+c0:(y+dy)*e.cols+c1]) }
	if dy > 0 {
		for y := y0; y < y1; y++ {
			move(y)
		}
	} else {
		for y := y1 - 1; y >= y0; y-- {
			move(y)
		}
	}
}
