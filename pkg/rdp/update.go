package rdp

import (
	"image"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/rdp/bitmap"
)

// Bitmap data flags (MS-RDPBCGR 2.2.9.1.1.3.1.2.2).
const (
	bitmapCompression      = 0x0001
	bitmapNoCompressionHdr = 0x0400
)

// Update types in slow-path update PDUs and fast-path bitmap/palette data.
const (
	updateOrders  = 0x0
	updateBitmap  = 0x1
	updatePalette = 0x2
	updateSync    = 0x3
)

// maxRectPixels bounds one bitmap rectangle (and so the decode scratch):
// servers send tiles of 64x64 or strips a screen wide.
const maxRectPixels = 4 << 20

// maxRectsPerUpdate bounds the rectangle count field; each rectangle takes
// at least 18 bytes, so a 64 KiB PDU cannot hold more than a few thousand,
// but a reassembled fast-path update can.
const maxRectsPerUpdate = 1 << 16

// bitmapRect is one TS_BITMAP_DATA.
type bitmapRect struct {
	Left, Top, Right, Bottom int // inclusive destination
	Width, Height, BPP       int
	Flags                    uint16
	Data                     []byte
}

// parseBitmapUpdate parses TS_UPDATE_BITMAP_DATA (updateType included) and
// calls fn for each rectangle, stopping at the first error.
func parseBitmapUpdate(b []byte, fn func(*bitmapRect) error) error {
	const where = "bitmap update"
	r := newReader(where, b)
	if t := r.u16(); r.err == nil && t != updateBitmap {
		return protoErr(where, "update type %d, want bitmap", t)
	}
	n := int(r.u16())
	if r.err != nil {
		return r.err
	}
	if n > maxRectsPerUpdate {
		return protoErr(where, "%d rectangles is over the %d limit", n, maxRectsPerUpdate)
	}
	var rect bitmapRect
	for range n {
		rect.Left = int(r.u16())
		rect.Top = int(r.u16())
		rect.Right = int(r.u16())
		rect.Bottom = int(r.u16())
		rect.Width = int(r.u16())
		rect.Height = int(r.u16())
		rect.BPP = int(r.u16())
		rect.Flags = r.u16()
		l := int(r.u16())
		rect.Data = r.bytes(l)
		if r.err != nil {
			return r.err
		}
		if rect.Flags&bitmapCompression != 0 && rect.Flags&bitmapNoCompressionHdr == 0 {
			// TS_CD_HEADER: the main body size follows the first-row field.
			hr := newReader("bitmap compression header", rect.Data)
			hr.u16()
			body := int(hr.u16())
			hr.u16()
			hr.u16()
			if hr.err != nil {
				return hr.err
			}
			if body > len(rect.Data)-8 {
				return protoErr(where, "compressed body of %d bytes in %d", body, len(rect.Data)-8)
			}
			rect.Data = rect.Data[8 : 8+body]
		}
		if rect.Width <= 0 || rect.Height <= 0 || rect.Width*rect.Height > maxRectPixels {
			return protoErr(where, "rectangle of %dx%d", rect.Width, rect.Height)
		}
		switch rect.BPP {
		case 8, 15, 16, 24, 32:
		default:
			return protoErr(where, "%d bits per pixel", rect.BPP)
		}
		if err := fn(&rect); err != nil {
			return err
		}
	}
	return nil
}

// parsePalette parses TS_UPDATE_PALETTE_DATA (updateType included).
func parsePalette(b []byte, pal *bitmap.Palette) error {
	const where = "palette update"
	r := newReader(where, b)
	if t := r.u16(); r.err == nil && t != updatePalette {
		return protoErr(where, "update type %d, want palette", t)
	}
	r.u16()
	n := int(r.u32())
	if r.err != nil {
		return r.err
	}
	if n > 256 {
		return protoErr(where, "%d colours, at most 256", n)
	}
	for i := range n {
		c := r.bytes(3)
		if r.err != nil {
			return r.err
		}
		pal[i] = [3]uint8{c[0], c[1], c[2]}
	}
	return nil
}

// painter decodes bitmap rectangles into the framebuffer.
type painter struct {
	buf     *fb.Buffer
	pal     bitmap.Palette
	scratch []byte
}

// paint decodes every rectangle of a bitmap update and writes the visible
// parts into the framebuffer under one write section.
//
// Each rectangle is decoded outside the framebuffer's lock and copied in
// under it, so readers (status, screen) never wait for a decoder: a
// run-length rectangle of 4 Mpx takes far longer to decode than to copy.
func (p *painter) paint(b []byte) (work int, err error) {
	fw, fh := p.buf.Size() // only this goroutine resizes
	// Run-length codes expand a few bytes into many pixels, so bound the
	// decoding work of one update: real servers paint each pixel about
	// once; four screens' worth is generous.
	budget := 4*fw*fh + 64*64
	err = parseBitmapUpdate(b, func(rc *bitmapRect) error {
		vis := image.Rect(rc.Left, rc.Top, rc.Right+1, rc.Bottom+1).Intersect(image.Rect(0, 0, fw, fh))
		if vis.Empty() {
			return nil // nothing on screen: do not spend time decoding it
		}
		work += rc.Width * rc.Height
		if budget -= rc.Width * rc.Height; budget < 0 {
			return protoErr("bitmap update", "rectangles cover more than four screens")
		}
		n := rc.Width * rc.Height * 4
		if cap(p.scratch) < n {
			p.scratch = make([]byte, n)
		}
		s := p.scratch[:n]
		sw := rc.Width * 4
		var err error
		switch {
		case rc.Flags&bitmapCompression == 0:
			err = bitmap.DecodeRaw(rc.Data, rc.Width, rc.Height, rc.BPP, &p.pal, s, sw)
		case rc.BPP == 32:
			err = bitmap.DecodePlanar(rc.Data, rc.Width, rc.Height, s, sw)
		default:
			err = bitmap.DecodeInterleaved(rc.Data, rc.Width, rc.Height, rc.BPP, &p.pal, s, sw)
		}
		if err != nil {
			return protoErr("bitmap rectangle", "%v", err)
		}
		// Visible part: the destination is inclusive and may be narrower
		// than the (padded) bitmap; clip it to the frame.
		dst := image.Rect(rc.Left, rc.Top, rc.Right+1, rc.Bottom+1)
		dst = dst.Intersect(image.Rect(rc.Left, rc.Top, rc.Left+rc.Width, rc.Top+rc.Height))
		dst = dst.Intersect(image.Rect(0, 0, fw, fh))
		if dst.Empty() {
			return nil
		}
		cols := dst.Dx() * 4
		sx := (dst.Min.X - rc.Left) * 4
		pix, stride, bw, bh := p.buf.BeginWrite()
		defer p.buf.EndWrite(dst)
		if bw != fw || bh != fh {
			return protoErr("bitmap update", "framebuffer resized under the painter")
		}
		for y := dst.Min.Y; y < dst.Max.Y; y++ {
			sy := y - rc.Top
			row := pix[y*stride+dst.Min.X*4 : y*stride+dst.Min.X*4+cols]
			copy(row, s[sy*sw+sx:sy*sw+sx+cols])
			// The framebuffer is opaque: a desktop's alpha (planar alpha
			// planes, 32 bpp raw) carries nothing to show.
			for i := 3; i < len(row); i += 4 {
				row[i] = 0xff
			}
		}
		return nil
	})
	return work, err
}
