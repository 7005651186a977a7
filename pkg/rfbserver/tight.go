package rfbserver

import (
	"bytes"
	"image"

	"github.com/klauspost/compress/zlib"

	"github.com/dvvhq/dvv/pkg/jpegenc"
)

// Tight encoding (7). Each rectangle is sent as the smallest of what fits
// it: one colour (fill); few colours (palette, 1 bit a pixel for two, a
// byte a pixel up to 256, through zlib); a photographic area, when the
// viewer asked for a JPEG quality level (JPEG); else the pixels through
// zlib. Text stays lossless whatever the quality level: it has few colours
// and long runs, which is what tells it from a photograph here.

// Tight's compression-control values (the high nibble) and filters.
const (
	tightFill       = 0x80
	tightJPEG       = 0x90
	tightExplicit   = 0x40 // a filter byte follows
	tightFilterCopy = 0
	tightFilterPal  = 1
	tightMinZlib    = 12 // shorter data is sent as it is, without zlib
	// tightMaxPixels bounds one Tight rectangle, as TightVNC's servers do:
	// some viewers size their buffers for it.
	tightMaxPixels = 1 << 16
	tightMaxWidth  = 2048
)

// tightStream0 is the one zlib stream used of the viewer's four: each
// stream costs this side about 1 MiB of deflate state, and a session's
// memory is bounded to one (see memory_test.go).
const tightStream0 = 0

// jpegQuality and jpegSubsampling map the viewer's quality level (0..9)
// to a JPEG quality and chroma subsampling, the tables TigerVNC's servers
// use, so equal settings mean equal pictures: 4:2:0 for the lowest three
// levels, 4:2:2 for the middle three, full chroma from level 6 (noVNC's
// default) up.
var (
	jpegQuality     = [10]int{15, 29, 41, 42, 62, 77, 79, 86, 92, 100}
	jpegSubsampling = [10]jpegenc.Subsampling{
		jpegenc.Sub420, jpegenc.Sub420, jpegenc.Sub420,
		jpegenc.Sub422, jpegenc.Sub422, jpegenc.Sub422,
		jpegenc.Sub444, jpegenc.Sub444, jpegenc.Sub444, jpegenc.Sub444,
	}
)

// tightOptions are the viewer's Tight settings.
type tightOptions struct {
	quality  int // -1: no JPEG (the viewer named no quality level)
	compress int // zlib level 0..9
}

// tightOptionsOf reads the quality and compression pseudo-encodings.
func tightOptionsOf(encs []int32) tightOptions {
	o := tightOptions{quality: -1, compress: 1}
	for _, e := range encs {
		switch {
		case e >= encQuality0 && e <= encQuality0+9:
			o.quality = int(e - encQuality0)
		case e >= encCompress0 && e <= encCompress0+9:
			o.compress = int(e - encCompress0)
		}
	}
	return o
}

// tpixelRGB reports whether Tight sends a pixel as 3 bytes R, G, B (its
// TPIXEL) rather than in the viewer's pixel format.
func (f PixelFormat) tpixelRGB() bool {
	return f.BPP == 32 && f.Depth == 24 && f.RedMax == 255 && f.GreenMax == 255 && f.BlueMax == 255
}

func (f PixelFormat) appendTPixel(out []byte, c uint32) []byte {
	r, g, b := byte(c>>16), byte(c>>8), byte(c)
	if f.tpixelRGB() {
		return append(out, r, g, b)
	}
	var tmp [4]byte
	f.put(tmp[:f.pixelSize()], f.pixel(r, g, b))
	return append(out, tmp[:f.pixelSize()]...)
}

func rgbAt(p []byte, i int) uint32 { return uint32(p[i])<<16 | uint32(p[i+1])<<8 | uint32(p[i+2]) }

// countRuns adds the colours of every step-th row of pix from y0 to y1
// (w pixels from its start, stride bytes a row) to set, and counts the
// runs of one colour along those rows and whether there were more than
// 256 colours; set also counts the pixels of each colour. A row equal to
// the one before (background, a flat area) is compared, not walked: it
// adds its runs and counts again and no colour.
func countRuns(set *colourSet, pix []byte, stride, w, y0, y1, step int) (runs int, many bool) {
	var prevRow []byte
	prevRuns := 0
	for y := y0; y < y1; y += step {
		row := pix[y*stride : y*stride+w*4]
		if prevRow != nil && bytes.Equal(row, prevRow) {
			runs += prevRuns
			for _, r := range set.row {
				set.count[r.idx] += r.n
			}
			continue
		}
		set.row = set.row[:0]
		n, prev, idx, start := 0, ^uint32(0), -1, 0
		for i := 0; i < len(row); i += 4 {
			if c := rgbAt(row, i); c != prev {
				if n > 0 {
					set.tally(idx, i/4-start)
				}
				n++
				prev, start = c, i/4
				idx = set.add(c)
				many = many || idx < 0
			}
		}
		if n > 0 {
			set.tally(idx, w-start)
		}
		runs += n
		prevRow, prevRuns = row, n
	}
	return runs, many
}

// tight encodes the band (r, from 0,0) as one Tight rectangle; photo says
// the planning found it photographic (see splitPhoto).
func (e *encoder) tight(pf PixelFormat, w, h int, o tightOptions, photo, stateless bool) []byte {
	out := e.out[:0]
	set := e.colours
	if set == nil {
		set = &colourSet{}
		e.colours = set
	}
	set.reset()
	runs, many := countRuns(set, e.band, e.stride, w, 0, h, 1)
	n := len(set.list)
	photo = photo && looksPhotographic(n, many, runs, set.dominant(), w*h)
	if !many && n == 1 {
		return pf.appendTPixel(append(out, tightFill), set.list[0])
	}
	if photo && o.quality >= 0 && pf.BPP > 8 && w >= 8 && h >= 8 {
		if jpg, err := e.tightJPEG(out, w, h, o.quality); err == nil {
			return jpg
		}
		// The band is always a valid picture; were it refused, the
		// rectangle would still go, losslessly, below.
	}
	if !many {
		return e.tightPalette(out, pf, w, h, o, stateless)
	}
	return e.tightCopy(out, pf, w, h, o, stateless)
}

func (e *encoder) tightPalette(out []byte, pf PixelFormat, w, h int, o tightOptions, stateless bool) []byte {
	pal := e.colours.list
	out = append(out, tightStream0<<4|tightExplicit, tightFilterPal, byte(len(pal)-1))
	for _, c := range pal {
		out = pf.appendTPixel(out, c)
	}
	data := e.raw[:0]
	var prevRow []byte
	for y := 0; y < h; y++ {
		row := e.band[y*e.stride : y*e.stride+w*4]
		if prevRow != nil && bytes.Equal(row, prevRow) {
			// The same pixels give the same indices: the last row's again.
			n := w
			if len(pal) <= 2 {
				n = (w + 7) / 8
			}
			data = append(data, data[len(data)-n:]...)
			continue
		}
		prevRow = row
		var cur byte
		nbits := 0
		last, idx := ^uint32(0), byte(0)
		for i := 0; i < len(row); i += 4 {
			if c := rgbAt(row, i); c != last { // a run keeps its index
				last, idx = c, byte(e.colours.add(c))
			}
			if len(pal) > 2 {
				data = append(data, idx)
				continue
			}
			cur = cur<<1 | idx
			if nbits++; nbits == 8 {
				data = append(data, cur)
				cur, nbits = 0, 0
			}
		}
		if nbits > 0 {
			data = append(data, cur<<(8-nbits))
		}
	}
	e.raw = data
	return e.tightZlib(out, data, o, stateless)
}

func (e *encoder) tightCopy(out []byte, pf PixelFormat, w, h int, o tightOptions, stateless bool) []byte {
	out = append(out, tightStream0<<4)
	data := e.raw[:0]
	rgb := pf.tpixelRGB()
	for y := 0; y < h; y++ {
		row := e.band[y*e.stride : y*e.stride+w*4]
		if !rgb {
			data = pf.appendRect(data, e.band, e.stride, 0, y, w, 1, pf.pixelSize(), 0)
			continue
		}
		for i := 0; i < len(row); i += 4 {
			data = append(data, row[i], row[i+1], row[i+2])
		}
	}
	e.raw = data
	return e.tightZlib(out, data, o, stateless)
}

// tightZlib appends data through the zlib stream (a compact length
// first), or as it is when it is too short to be worth compressing.
// stateless starts a new stream for this rectangle alone (the viewer
// resets its stream too), so the bytes can be sent to any viewer.
func (e *encoder) tightZlib(out []byte, data []byte, o tightOptions, stateless bool) []byte {
	if len(data) < tightMinZlib {
		return append(out, data...)
	}
	z := &e.tightZ
	z.buf.Reset()
	switch {
	case z.w == nil || z.level != o.compress:
		z.w, _ = zlib.NewWriterLevel(&z.buf, o.compress)
		z.level, z.fresh = o.compress, true
	case stateless || z.stale:
		z.w.Reset(&z.buf)
	}
	if z.fresh || stateless || z.stale {
		out[0] |= 1 << tightStream0 // out starts with the compression-control byte
	}
	z.fresh, z.stale = false, false
	z.w.Write(data)
	z.w.Flush()
	out = appendCompactLen(out, z.buf.Len())
	return append(out, z.buf.Bytes()...)
}

// tightJPEG appends the band as JPEG at the viewer's quality level, with
// TigerVNC's quality and subsampling for it.
func (e *encoder) tightJPEG(out []byte, w, h, level int) ([]byte, error) {
	if e.jpeg == nil {
		e.jpeg = &jpegenc.Encoder{}
	}
	data, err := e.jpeg.Encode(e.jbuf[:0], e.band, e.stride, w, h, jpegQuality[level], jpegSubsampling[level])
	e.jbuf = data
	if err != nil {
		return out, err
	}
	out = append(out, tightJPEG)
	out = appendCompactLen(out, len(data))
	return append(out, data...), nil
}

// appendCompactLen appends n in Tight's 1 to 3 byte form, 7 bits a byte,
// low bits first.
func appendCompactLen(out []byte, n int) []byte {
	switch {
	case n < 1<<7:
		return append(out, byte(n))
	case n < 1<<14:
		return append(out, byte(n)|0x80, byte(n>>7))
	}
	return append(out, byte(n)|0x80, byte(n>>7)|0x80, byte(n>>14))
}

// tightStream is one of the viewer's zlib streams as this side keeps it.
type tightStream struct {
	w     *zlib.Writer
	buf   bytes.Buffer
	level int
	fresh bool // a new writer: the viewer must reset its stream
	stale bool // the viewer's stream was fed bytes this writer did not make
}

// splitForTight cuts pixel rectangles to Tight's size bounds.
func splitForTight(rects []rectOut) []rectOut {
	var out []rectOut
	for _, r := range rects {
		if r.enc != 0 || r.r.Dx() <= tightMaxWidth && r.r.Dx()*r.r.Dy() <= tightMaxPixels {
			out = append(out, r)
			continue
		}
		step := max(tile, min(tightMaxWidth, tightMaxPixels/max(r.r.Dy(), 1))/tile*tile)
		for x := r.r.Min.X; x < r.r.Max.X; x += step {
			out = append(out, rectOut{r: image.Rect(x, r.r.Min.Y, min(x+step, r.r.Max.X), r.r.Max.Y), photo: r.photo})
		}
	}
	return out
}
