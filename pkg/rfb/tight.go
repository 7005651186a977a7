package rfb

import (
	"bytes"
	"image"
	"image/draw"
	"image/jpeg"
)

// Tight encoding. With our 32-bit depth-24 pixel format, Tight sends
// 3-byte "TPIXEL"s in R, G, B order.

const (
	tightFill     = 8
	tightJPEG     = 9
	tightFilterCp = 0
	tightFilterPl = 1
	tightFilterGr = 2
	maxTightData  = 1<<22 - 1 // largest value a compact length can carry
)

func (r *reader) tpixel() (c [4]byte) {
	r.read(c[:3])
	c[3] = 0xff
	return c
}

func (d *decoder) tightRect(r *reader, x, y, w, h int) error {
	ctl := r.u8()
	if r.err != nil {
		return r.err
	}
	for i := range d.tight {
		if ctl&(1<<i) != 0 {
			d.tight[i].reset()
		}
	}
	ctl >>= 4
	switch {
	case ctl == tightFill:
		c := r.tpixel()
		if r.err == nil {
			d.s.fill(x, y, w, h, c)
			d.filled, d.fill = true, c
		}
		return r.err
	case ctl == tightJPEG:
		return d.tightJPEG(r, x, y, w, h)
	case ctl > tightJPEG:
		return protoErr("Tight compression type %d not asked for", ctl)
	}
	filter := byte(tightFilterCp)
	if ctl&4 != 0 {
		filter = r.u8()
	}
	var palette [256][4]byte
	nPal := 0
	rowBytes := w * 3
	switch filter {
	case tightFilterCp, tightFilterGr:
	case tightFilterPl:
		nPal = int(r.u8()) + 1
		for i := 0; i < nPal; i++ {
			palette[i] = r.tpixel()
		}
		if nPal <= 2 {
			rowBytes = (w + 7) / 8
		} else {
			rowBytes = w
		}
	default:
		return protoErr("Tight filter %d", filter)
	}
	if r.err != nil {
		return r.err
	}
	size := rowBytes * h
	var data []byte
	if size < 12 {
		data = r.bytes(size)
	} else {
		n := r.compactLen()
		if r.err != nil {
			return r.err
		}
		if n > size+size/8+1024 {
			return protoErr("%d bytes of Tight data for a %d-byte rectangle", n, size)
		}
		chunk := r.bytes(n)
		if r.err != nil {
			return r.err
		}
		var err error
		data, err = d.tight[ctl&3].inflate(chunk, size)
		if err != nil {
			return err
		}
	}
	if r.err != nil {
		return r.err
	}
	if len(data) != size {
		return protoErr("Tight rectangle inflated to %d bytes, want %d", len(data), size)
	}
	switch {
	case nPal > 0:
		d.tightPalette(data, palette[:nPal], rowBytes, x, y, w, h)
	case filter == tightFilterGr:
		d.tightGradient(data, x, y, w, h)
	default:
		for j := 0; j < h; j++ {
			expand3(d.s.row(x, y+j, w), data[j*rowBytes:])
		}
	}
	return nil
}

func (d *decoder) tightPalette(data []byte, pal [][4]byte, rowBytes, x, y, w, h int) {
	for j := 0; j < h; j++ {
		row := d.s.row(x, y+j, w)
		src := data[j*rowBytes:]
		for i := 0; i < w; i++ {
			var idx int
			if len(pal) <= 2 {
				idx = int(src[i/8]>>(7-i%8)) & 1
			} else {
				idx = int(src[i])
			}
			if idx >= len(pal) {
				idx = 0 // out-of-range index: the spec leaves it undefined
			}
			copy(row[i*4:i*4+4], pal[idx][:])
		}
	}
}

func (d *decoder) tightGradient(data []byte, x, y, w, h int) {
	if cap(d.buf) < 6*w {
		d.buf = make([]byte, 6*w)
	}
	prev, cur := d.buf[:3*w], d.buf[3*w:6*w]
	clear(prev)
	for j := 0; j < h; j++ {
		src := data[j*w*3:]
		for i := 0; i < w; i++ {
			for c := 0; c < 3; c++ {
				var left, upLeft int
				if i > 0 {
					left, upLeft = int(cur[(i-1)*3+c]), int(prev[(i-1)*3+c])
				}
				p := left + int(prev[i*3+c]) - upLeft
				p = max(0, min(255, p))
				cur[i*3+c] = byte(p + int(src[i*3+c]))
			}
		}
		expand3(d.s.row(x, y+j, w), cur)
		prev, cur = cur, prev
	}
}

func (d *decoder) tightJPEG(r *reader, x, y, w, h int) error {
	n := r.compactLen()
	if r.err != nil {
		return r.err
	}
	data := r.bytes(n)
	if r.err != nil {
		return r.err
	}
	// Check the declared size before decoding: the decoder allocates it.
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return &ProtocolError{Msg: "Tight JPEG header", Err: err}
	}
	if cfg.Width != w || cfg.Height != h {
		return protoErr("Tight JPEG of %dx%d in a %dx%d rectangle", cfg.Width, cfg.Height, w, h)
	}
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		return &ProtocolError{Msg: "Tight JPEG", Err: err}
	}
	d.putImage(img, x, y, w, h)
	return nil
}

// putImage copies a decoded image into the surface; image/draw has fast
// paths for the YCbCr and Gray images image/jpeg returns.
func (d *decoder) putImage(img image.Image, x, y, w, h int) {
	dst := &image.RGBA{Pix: d.s.pix, Stride: d.s.w * 4, Rect: d.s.bounds()}
	draw.Draw(dst, image.Rect(x, y, x+w, y+h), img, img.Bounds().Min, draw.Src)
	for j := 0; j < h; j++ {
		setOpaque(d.s.row(x, y+j, w))
	}
}
