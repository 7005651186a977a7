package rfb

// ZRLE: one zlib stream for the connection; each rectangle is 64x64 tiles
// of 3-byte "CPIXEL"s (R, G, B with our pixel format).

const zrleTile = 64

// cursor walks an inflated buffer with bounds checks.
type cursor struct {
	b   []byte
	bad bool
}

func (c *cursor) take(n int) []byte {
	if n > len(c.b) {
		c.bad = true
		c.b = nil
		return nil
	}
	p := c.b[:n]
	c.b = c.b[n:]
	return p
}

func (c *cursor) u8() byte {
	if len(c.b) == 0 {
		c.bad = true
		return 0
	}
	v := c.b[0]
	c.b = c.b[1:]
	return v
}

func (c *cursor) cpixel() (p [4]byte) {
	if len(c.b) < 3 {
		c.bad = true
		c.b = nil
		return p
	}
	p = [4]byte{c.b[0], c.b[1], c.b[2], 0xff}
	c.b = c.b[3:]
	return p
}

// runLength reads a ZRLE run: 1 + the sum of bytes up to one below 255.
func (c *cursor) runLength(limit int) int {
	n := 1
	for {
		b := c.u8()
		if c.bad {
			return 0
		}
		n += int(b)
		if n > limit {
			c.bad = true
			return 0
		}
		if b != 255 {
			return n
		}
	}
}

func (d *decoder) zrleRect(r *reader, x, y, w, h int) error {
	tiles := ((w + zrleTile - 1) / zrleTile) * ((h + zrleTile - 1) / zrleTile)
	// Worst case: plain RLE of single pixels, 4 bytes each, plus palettes.
	limit := w*h*4 + tiles*(1+127*3)
	chunk := r.zlibChunk(limit)
	if r.err != nil {
		return r.err
	}
	out, err := d.zrle.inflate(chunk, limit)
	if err != nil {
		return err
	}
	c := &cursor{b: out}
	for ty := y; ty < y+h; ty += zrleTile {
		th := min(zrleTile, y+h-ty)
		for tx := x; tx < x+w; tx += zrleTile {
			tw := min(zrleTile, x+w-tx)
			if err := d.zrleTile(c, tx, ty, tw, th); err != nil {
				return err
			}
		}
	}
	return nil
}

func (d *decoder) zrleTile(c *cursor, x, y, w, h int) error {
	sub := int(c.u8())
	var pal [128][4]byte
	switch {
	case sub == 0:
		for j := 0; j < h; j++ {
			src := c.take(w * 3)
			if c.bad {
				break
			}
			expand3(d.s.row(x, y+j, w), src)
		}
	case sub == 1:
		p := c.cpixel()
		d.s.fill(x, y, w, h, p)
	case sub <= 16:
		for i := 0; i < sub; i++ {
			pal[i] = c.cpixel()
		}
		bits := 4
		if sub == 2 {
			bits = 1
		} else if sub <= 4 {
			bits = 2
		}
		rowBytes := (w*bits + 7) / 8
		mask := byte(1<<bits - 1)
		for j := 0; j < h && !c.bad; j++ {
			src := c.take(rowBytes)
			if c.bad {
				break
			}
			row := d.s.row(x, y+j, w)
			for i := 0; i < w; i++ {
				bit := i * bits
				idx := int(src[bit/8]>>(8-bits-bit%8)) & int(mask)
				if idx >= sub {
					return protoErr("ZRLE palette index %d of %d", idx, sub)
				}
				p := row[i*4 : i*4+4 : i*4+4]
				p[0], p[1], p[2], p[3] = pal[idx][0], pal[idx][1], pal[idx][2], 0xff
			}
		}
	case sub == 128:
		for i := 0; i < w*h && !c.bad; {
			p := c.cpixel()
			n := c.runLength(w*h - i)
			d.run(x, y, w, i, n, p)
			i += n
		}
	case sub >= 130:
		n := sub - 128
		for i := 0; i < n; i++ {
			pal[i] = c.cpixel()
		}
		for i := 0; i < w*h && !c.bad; {
			idx := int(c.u8())
			run := 1
			if idx&128 != 0 {
				idx &= 127
				run = c.runLength(w*h - i)
			}
			if idx >= n {
				return protoErr("ZRLE palette index %d of %d", idx, n)
			}
			if c.bad {
				break
			}
			d.run(x, y, w, i, run, pal[idx])
			i += run
		}
	default:
		return protoErr("ZRLE tile subencoding %d", sub)
	}
	if c.bad {
		return protoErr("ZRLE tile data cut short")
	}
	return nil
}

// run paints n pixels in tile order starting at index i of a w-wide tile.
func (d *decoder) run(x, y, w, i, n int, p [4]byte) {
	for n > 0 {
		tx, ty := i%w, i/w
		k := min(n, w-tx)
		row := d.s.row(x+tx, y+ty, k)
		for o := 0; o < len(row); o += 4 {
			copy(row[o:o+4], p[:])
		}
		i += k
		n -= k
	}
}
