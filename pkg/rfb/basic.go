package rfb

// Raw, CopyRect, RRE, Hextile and Zlib. Pixels arrive in our negotiated
// format: 4 bytes, R G B then an unused byte we force to 0xff.

func (d *decoder) raw(r *reader, x, y, w, h int) error {
	for j := 0; j < h && r.err == nil; j++ {
		row := d.s.row(x, y+j, w)
		r.read(row)
		setOpaque(row)
	}
	return r.err
}

func (d *decoder) copyRect(r *reader, x, y, w, h int) error {
	sx, sy := int(r.u16()), int(r.u16())
	if r.err != nil {
		return r.err
	}
	if sx+w > d.s.w || sy+h > d.s.h {
		return protoErr("CopyRect source %dx%d+%d+%d outside the framebuffer", w, h, sx, sy)
	}
	if sy < y { // overlapping downward move: copy bottom-up
		for j := h - 1; j >= 0; j-- {
			copy(d.s.row(x, y+j, w), d.s.row(sx, sy+j, w))
		}
	} else {
		for j := 0; j < h; j++ {
			copy(d.s.row(x, y+j, w), d.s.row(sx, sy+j, w))
		}
	}
	return nil
}

func (r *reader) pixel() (c [4]byte) {
	r.read(c[:])
	c[3] = 0xff
	return c
}

func (d *decoder) rre(r *reader, x, y, w, h int) error {
	n := r.u32()
	bg := r.pixel()
	if r.err != nil {
		return r.err
	}
	if int64(n) > int64(w)*int64(h) {
		return protoErr("RRE with %d subrectangles in a %dx%d rectangle", n, w, h)
	}
	d.s.fill(x, y, w, h, bg)
	for i := uint32(0); i < n && r.err == nil; i++ {
		c := r.pixel()
		sx, sy, sw, sh := int(r.u16()), int(r.u16()), int(r.u16()), int(r.u16())
		if r.err != nil {
			break
		}
		if sx+sw > w || sy+sh > h {
			return protoErr("RRE subrectangle outside its rectangle")
		}
		d.s.fill(x+sx, y+sy, sw, sh, c)
	}
	return r.err
}

const (
	hexRaw = 1 << iota
	hexBackground
	hexForeground
	hexAnySubrects
	hexSubrectsColoured
)

func (d *decoder) hextile(r *reader, x, y, w, h int) error {
	var bg, fg [4]byte
	for ty := y; ty < y+h; ty += 16 {
		th := min(16, y+h-ty)
		for tx := x; tx < x+w; tx += 16 {
			tw := min(16, x+w-tx)
			sub := r.u8()
			if r.err != nil {
				return r.err
			}
			if sub&hexRaw != 0 {
				if err := d.raw(r, tx, ty, tw, th); err != nil {
					return err
				}
				continue
			}
			if sub&hexBackground != 0 {
				bg = r.pixel()
			}
			d.s.fill(tx, ty, tw, th, bg)
			if sub&hexForeground != 0 {
				fg = r.pixel()
			}
			if sub&hexAnySubrects == 0 {
				continue
			}
			n := int(r.u8())
			c := fg
			for i := 0; i < n && r.err == nil; i++ {
				if sub&hexSubrectsColoured != 0 {
					c = r.pixel()
				}
				xy, wh := r.u8(), r.u8()
				sx, sy := int(xy>>4), int(xy&15)
				sw, sh := int(wh>>4)+1, int(wh&15)+1
				if sx+sw > tw || sy+sh > th {
					return protoErr("Hextile subrectangle outside its tile")
				}
				d.s.fill(tx+sx, ty+sy, sw, sh, c)
			}
			if r.err != nil {
				return r.err
			}
		}
	}
	return r.err
}

// zlibChunk reads a U32 length and that many bytes of compressed data,
// bounded by what a rectangle needing at most limit bytes of output can
// plausibly take (deflate never expands by more than a small fraction).
func (r *reader) zlibChunk(limit int) []byte {
	n := r.u32()
	if r.err != nil {
		return nil
	}
	if int64(n) > int64(limit)+int64(limit)/8+1024 {
		r.fail(protoErr("%d bytes of compressed data for at most %d bytes of pixels", n, limit))
		return nil
	}
	return r.bytes(int(n))
}

func (d *decoder) zlibRect(r *reader, x, y, w, h int) error {
	need := w * h * 4
	chunk := r.zlibChunk(need)
	if r.err != nil {
		return r.err
	}
	out, err := d.zlib.inflate(chunk, need)
	if err != nil {
		return err
	}
	if len(out) != need {
		return protoErr("Zlib rectangle inflated to %d bytes, want %d", len(out), need)
	}
	for j := 0; j < h; j++ {
		row := d.s.row(x, y+j, w)
		copy(row, out[j*w*4:])
		setOpaque(row)
	}
	return nil
}
