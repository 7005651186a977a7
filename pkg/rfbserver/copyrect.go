package rfbserver

import (
	"bytes"
	"encoding/binary"
	"image"
)

// minScrollRows is the smallest band worth a CopyRect.
const minScrollRows = 32

// findScroll looks for a vertical scroll inside area: a band of rows the
// viewer already has, only moved. When it finds one it moves the band in
// the shadow as the viewer will and returns the CopyRect, which must be
// sent before any other rectangle of the update (it reads the viewer's
// framebuffer as it was).
func (e *encoder) findScroll(pix []byte, area image.Rectangle) (rectOut, bool) {
	if area.Dy() < minScrollRows*2 || area.Dx() < tile {
		return rectOut{}, false
	}
	stride := e.w * 4
	x0, x1 := area.Min.X*4, area.Max.X*4
	newRow := func(y int) []byte { return pix[y*stride+x0 : y*stride+x1] }
	oldRow := func(y int) []byte { return e.shadow[y*stride+x0 : y*stride+x1] }
	for _, probe := range []int{area.Min.Y + area.Dy()/2, area.Min.Y + area.Dy()/4, area.Min.Y + 3*area.Dy()/4} {
		if bytes.Equal(newRow(probe), oldRow(probe)) {
			continue // unchanged here: no evidence of a move
		}
		tried := 0
		for src := area.Min.Y; src < area.Max.Y && tried < 8; src++ {
			if src == probe || !bytes.Equal(newRow(probe), oldRow(src)) {
				continue
			}
			tried++
			dy := src - probe
			y0, y1 := probe, probe+1
			for y0 > area.Min.Y && y0-1+dy >= area.Min.Y && bytes.Equal(newRow(y0-1), oldRow(y0-1+dy)) {
				y0--
			}
			for y1 < area.Max.Y && y1+dy < area.Max.Y && bytes.Equal(newRow(y1), oldRow(y1+dy)) {
				y1++
			}
			if y1-y0 < minScrollRows {
				continue
			}
			band := make([]byte, (y1-y0)*(x1-x0))
			for y := y0; y < y1; y++ {
				copy(band[(y-y0)*(x1-x0):], oldRow(y+dy))
			}
			for y := y0; y < y1; y++ {
				copy(oldRow(y), band[(y-y0)*(x1-x0):(y-y0+1)*(x1-x0)])
			}
			data := binary.BigEndian.AppendUint16(nil, uint16(area.Min.X))
			data = binary.BigEndian.AppendUint16(data, uint16(y0+dy))
			return rectOut{r: image.Rect(area.Min.X, y0, area.Max.X, y1), enc: encCopyRect, data: data}, true
		}
	}
	return rectOut{}, false
}
