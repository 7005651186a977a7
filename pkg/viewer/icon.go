package viewer

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"math"
	"net/http"
	"sync"
)

// favicon is the viewer's icon, drawn here rather than shipped as a file:
// the ring the page draws where an agent clicked, on the banner's colour.
// An .ico holding one PNG, which every browser reads.
var favicon = sync.OnceValue(func() []byte {
	const n = 32
	img := image.NewNRGBA(image.Rect(0, 0, n, n))
	bg := color.NRGBA{0x26, 0x32, 0x38, 0xff}
	ring := color.NRGBA{0xff, 0x00, 0xc8, 0xff}
	c := float64(n) / 2
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			// A rounded square: coverage falls off over the last pixel.
			dx, dy := math.Max(math.Abs(px-c)-(c-6), 0), math.Max(math.Abs(py-c)-(c-6), 0)
			cover := clamp01(6.5 - math.Hypot(dx, dy))
			if cover == 0 {
				continue
			}
			col := bg
			d := math.Hypot(px-c, py-c)
			if a := math.Max(clamp01(2-math.Abs(d-9.5)), clamp01(3.5-d)); a > 0 { // the ring and its dot
				col = mix(bg, ring, a)
			}
			col.A = uint8(cover * 255)
			img.SetNRGBA(x, y, col)
		}
	}
	var p bytes.Buffer
	png.Encode(&p, img)
	var ico bytes.Buffer
	// ICONDIR (reserved, type 1 = icon, one image), then its ICONDIRENTRY.
	binary.Write(&ico, binary.LittleEndian, [3]uint16{0, 1, 1})
	ico.Write([]byte{n, n, 0, 0})
	binary.Write(&ico, binary.LittleEndian, [2]uint16{1, 32})                   // colour planes, bits per pixel
	binary.Write(&ico, binary.LittleEndian, [2]uint32{uint32(p.Len()), 6 + 16}) // size, offset
	ico.Write(p.Bytes())
	return ico.Bytes()
})

func clamp01(v float64) float64 { return math.Min(1, math.Max(0, v)) }

func mix(a, b color.NRGBA, t float64) color.NRGBA {
	m := func(x, y uint8) uint8 { return uint8(float64(x)*(1-t) + float64(y)*t + 0.5) }
	return color.NRGBA{m(a.R, b.R), m(a.G, b.G), m(a.B, b.B), 0xff}
}

// serveFavicon answers /favicon.ico, which browsers fetch without being
// asked (and without a secret: the icon is the same for everyone).
func serveFavicon(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "image/x-icon")
	w.Write(favicon())
}
