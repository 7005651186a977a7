package daemon

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/dvvhq/dvv/pkg/imaging"
	"github.com/dvvhq/dvv/pkg/localfile"
	"github.com/dvvhq/dvv/pkg/wire"
)

var _ = register(wire.OpScreen, byKind(typed(opScreenDesktop), typed(opScreenTerminal)))

// opScreenDesktop encodes the mirror (whole, a region, or what changed
// since this attachment's last read) and clears its typing fence.
func opScreenDesktop(c *call, a wire.ScreenArgs) (*wire.ScreenAnswer, error) {
	l := c.l
	l.mu.Lock()
	perceive, state := l.perceive, l.state
	l.mu.Unlock()
	if !perceive {
		return nil, &wire.Error{Code: wire.NotReady, Message: fmt.Sprintf("limb %s was opened without perceive, so it keeps no framebuffer mirror", l.id),
			Next: "call open again for this machine with perceive: true"}
	}
	if state != wire.StateConnected {
		l.mu.Lock()
		err := l.notConnectedLocked()
		l.mu.Unlock()
		return nil, err
	}
	w, h := l.dsk.buf.Size()
	if w == 0 || h == 0 {
		return nil, wire.Errorf(wire.NotReady, "limb %s has no frame yet; wait until connected", l.id)
	}
	full := image.Rect(0, 0, w, h)
	region := full
	scale := 1.0
	form := a.Form
	if form == "" {
		form = "full"
	}
	if a.Region != nil && form != "region" {
		return nil, wire.Errorf(wire.BadRequest, "region is used with form: region only")
	}
	switch form {
	case "full":
		if a.Scale != nil {
			scale = *a.Scale
			if !(scale > 0 && scale <= 1) {
				return nil, wire.Errorf(wire.BadRequest, "scale must be in (0, 1]")
			}
		} else if a.MaxEdge != nil || a.MaxPixels != nil {
			scale = imaging.FitScale(w, h, deref(a.MaxEdge), deref(a.MaxPixels))
		}
	case "region":
		g := a.Region // required, and scale refused, by the spec
		region = image.Rect(g.X, g.Y, g.X+g.W, g.Y+g.H)
		if g.W <= 0 || g.H <= 0 || !region.In(full) {
			return nil, wire.Errorf(wire.OutOfBounds, "region %dx%d+%d+%d is not inside the %dx%d framebuffer", g.W, g.H, g.X, g.Y, w, h)
		}
	case "damage-crop":
		l.mu.Lock()
		f := l.fenceForLocked(c.att)
		read := f.read
		l.mu.Unlock()
		dmg := f.tracker.Peek()
		if read && dmg.Bounds.Empty() {
			r := &wire.ScreenAnswer{}
			r.Screen = &wire.Screen{Unchanged: true, Coverage: round3(l.dsk.buf.Coverage()), Generation: l.generation(),
				ImageSpace:     wire.ImageSpace{Scale: 1, Native: wire.Size{W: w, H: h}},
				ImageSpaceLine: "unchanged: nothing repainted since this attachment's last read; no image"}
			r.Observation = l.observe(c.att)
			return r, nil
		}
		if read && !dmg.Resized {
			region = dmg.Bounds.Intersect(full)
		}
	}
	format := a.Format // png or jpeg, by the spec
	if format == "" {
		format = "png"
	}
	if a.Out != "" && !filepath.IsAbs(a.Out) {
		return nil, wire.Errorf(wire.BadRequest, "out must be an absolute path")
	}

	gen := l.generation()
	var data []byte
	var iw, ih int
	var err error
	if format == "auto" {
		format, data, iw, ih, err = l.encodeSmaller(region, scale)
	} else {
		data, iw, ih, err = l.encode(region, scale, format)
	}
	if err != nil {
		return nil, err
	}
	if a.Format == "auto" && a.Out != "" {
		a.Out = withExtension(a.Out, format)
	}
	l.markRead(c.att, gen)
	scr := &wire.Screen{Mime: "image/" + format, Width: iw, Height: ih, Coverage: round3(l.dsk.buf.Coverage()), Generation: gen,
		ImageSpace: wire.ImageSpace{Region: wire.Region{X: region.Min.X, Y: region.Min.Y, W: region.Dx(), H: region.Dy()},
			Scale: scale, Native: wire.Size{W: w, H: h}}}
	scr.ImageSpaceLine = imageSpaceLine(scr)
	if a.Out == "" && len(data) > screenInlineMax {
		return nil, tooLargeInline(len(data), scale)
	}
	if a.Out != "" {
		if err := writeFileAtomic(a.Out, data); err != nil {
			return nil, wire.Errorf(wire.BadRequest, "write %s: %v", a.Out, err)
		}
		scr.Path = a.Out
	} else {
		scr.DataBase64 = base64.StdEncoding.EncodeToString(data)
	}
	if a.Windows {
		screenWindows(c, scr)
	}
	r := &wire.ScreenAnswer{}
	r.Screen = scr
	r.Observation = l.observe(c.att)
	return r, nil
}

// screenInlineMax bounds one inline image: base64 and JSON around it must
// stay well inside a client's 64 MiB answer line (and an MCP client's).
const screenInlineMax = 32 << 20

// tooLargeInline tells the agent how to get a picture that fits: a scale
// that should bring it under the limit, or out to have it written to a file.
func tooLargeInline(n int, scale float64) error {
	s := scale * math.Sqrt(float64(screenInlineMax)/float64(n)) * 0.9
	s = math.Floor(s*20) / 20
	if s <= 0 {
		s = 0.05
	}
	return wire.Errorf(wire.TooLarge, "the screen encodes to %d bytes, over the %d-byte limit for an inline image; pass scale: %g (or smaller), form: region for a part, or out: an absolute path to have it written to a file",
		n, screenInlineMax, s)
}

// imageSpaceLine tells an agent how to map a point on the picture back to
// the framebuffer.
func imageSpaceLine(s *wire.Screen) string {
	g := s.ImageSpace
	return fmt.Sprintf("imageSpace: image %dx%d shows native region x=%d y=%d w=%d h=%d of %dx%d at scale %g; native = (%d + imageX*%d/%d, %d + imageY*%d/%d); generation %d; coverage %.0f%%",
		s.Width, s.Height, g.Region.X, g.Region.Y, g.Region.W, g.Region.H, g.Native.W, g.Native.H, g.Scale,
		g.Region.X, g.Region.W, s.Width, g.Region.Y, g.Region.H, s.Height, s.Generation, s.Coverage*100)
}

// encode copies the region out of the mirror (so the decoder is never
// blocked by an encode) and encodes it. The limb's encode cache (keyed by
// the damage sequence the pixels were read at) means an unchanged frame is
// encoded once however many readers ask, and concurrent readers of the same
// frame share one encode.
func (l *Limb) encode(region image.Rectangle, scale float64, format string) ([]byte, int, int, error) {
	iw, ih := region.Dx(), region.Dy()
	if scale != 1 {
		iw, ih = imaging.ScaledSize(iw, ih, scale)
	}
	key := func(seq uint64) imaging.CacheKey {
		return imaging.CacheKey{Seq: seq, Region: region, Scale: scale, Format: format}
	}
	// Bytes filed under the current sequence show the current pixels.
	if data, ok := l.dsk.enc.Get(key(l.dsk.buf.Seq())); ok {
		return data, iw, ih, nil
	}
	var pix []byte
	var stride int
	var seq uint64
	if scale != 1 {
		// Scaling reads the mirror in place (scale is for the whole frame
		// only): the small result is the copy, not the whole frame.
		l.dsk.buf.Read(func(src []byte, srcStride, w, h int, s uint64) {
			img := imaging.Scale(src, srcStride, w, h, scale)
			pix, stride, seq = img.Pix, img.Stride, s
			iw, ih = img.Rect.Dx(), img.Rect.Dy()
		})
	} else {
		img, s := l.dsk.buf.Snapshot(region)
		pix, stride, seq = img.Pix, img.Stride, s
		iw, ih = img.Rect.Dx(), img.Rect.Dy()
	}
	// A resize between choosing the region and reading it leaves fewer
	// pixels than asked for: the picture is what was read (the geometry
	// generation has moved, so no act lands on it unfenced).
	if iw*ih == 0 {
		return nil, 0, 0, wire.Errorf(wire.NotReady, "the desktop was resized to nothing while its picture was taken; take the screen again")
	}
	data, err := l.dsk.enc.GetOrEncode(key(seq), func() ([]byte, error) {
		var out bytes.Buffer
		var err error
		if format == "jpeg" {
			err = imaging.EncodeJPEG(&out, pix, stride, iw, ih, 80)
		} else {
			err = imaging.EncodePNG(&out, pix, stride, iw, ih, imaging.PNGOptions{})
		}
		return out.Bytes(), err
	})
	if err != nil {
		return nil, 0, 0, wire.Errorf(wire.Internal, "encode %s: %v", format, err)
	}
	return data, iw, ih, nil
}

// encodeSmaller encodes the picture as PNG and as JPEG and answers the
// smaller, with its format. Neither kind of screen wins everywhere
// (docs/benchmarks.md, "PNG or JPEG per picture"): text, flat colours and
// sharp edges are a fraction of JPEG's size in PNG, a photograph or a video
// the other way round, and a desktop is often both. Encoding both costs a
// second encode (each is cached under its own format), which is cheap
// beside sending an agent more bytes than needed.
func (l *Limb) encodeSmaller(region image.Rectangle, scale float64) (string, []byte, int, int, error) {
	png, iw, ih, err := l.encode(region, scale, "png")
	if err != nil {
		return "", nil, 0, 0, err
	}
	jpg, _, _, err := l.encode(region, scale, "jpeg")
	if err != nil {
		return "", nil, 0, 0, err
	}
	if len(jpg) < len(png) {
		return "jpeg", jpg, iw, ih, nil
	}
	return "png", png, iw, ih, nil
}

// withExtension gives an out path ending in .png, .jpg or .jpeg the
// extension of the format format auto chose; other paths are kept.
func withExtension(path, format string) string {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".png" && ext != ".jpg" && ext != ".jpeg" {
		return path
	}
	return strings.TrimSuffix(path, filepath.Ext(path)) + map[string]string{"png": ".png", "jpeg": ".jpg"}[format]
}

// opScreenTerminal answers the terminal's text grid and cursor; a
// terminal's screen is text, so the image arguments do not apply.
func opScreenTerminal(c *call, _ wire.ScreenArgs) (*wire.ScreenAnswer, error) {
	term, err := c.l.terminal()
	if err != nil {
		return nil, err
	}
	rows, cx, cy := term.Grid()
	cols, nrows := term.Size()
	r := &wire.ScreenAnswer{}
	r.Screen = &wire.Screen{Mime: "text/plain", Text: rows, Cursor: &wire.Point{X: cx, Y: cy}, Width: cols, Height: nrows,
		Coverage: 1, Generation: 1, ImageSpaceLine: fmt.Sprintf("terminal %dx%d, cursor at column %d row %d (zero based)", cols, nrows, cx, cy)}
	r.Observation = c.l.observe(c.att)
	return r, nil
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// writeFileAtomic writes data beside path under a temporary name and renames
// it into place, so a reader never sees a half-written image and a failed
// write leaves whatever was there before.
func writeFileAtomic(path string, data []byte) error {
	if dev, ok, err := localfile.OpenDevice(path); err != nil {
		return err
	} else if ok {
		_, err = dev.Write(data)
		if cerr := dev.Close(); err == nil {
			err = cerr
		}
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
