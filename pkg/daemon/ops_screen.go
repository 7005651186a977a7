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

var _ = register(wire.OpScreen, byKind(typed(opScreenDesktop), typed(opScreenTerminal)), brief, listedOnDesktops, listedOnTerminals, perceives)

// opScreenDesktop encodes the mirror (whole, a region, or what changed
// since this attachment's last read) and clears its typing fence.
func opScreenDesktop(c *opCall, a wire.ScreenArgs) (*wire.ScreenAnswer, error) {
	l := c.l
	w, h, err := l.showable()
	if err != nil {
		return nil, err
	}
	region, scale, unchanged, err := screenArea(c, a, w, h)
	if err != nil || unchanged != nil {
		return unchanged, err
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
	if err := deliverScreen(scr, a.Out, data, scale); err != nil {
		return nil, err
	}
	if a.Windows {
		screenWindows(c, scr)
	}
	r := &wire.ScreenAnswer{}
	r.Screen = scr
	r.Observation = l.observe(c.att)
	return r, nil
}

// showable is the mirror's size when there is a picture to show: the
// limb keeps a mirror (perceive), is connected, and has had a frame.
func (l *Limb) showable() (w, h int, err error) {
	l.mu.Lock()
	perceive, state := l.perceive, l.state
	l.mu.Unlock()
	if !perceive {
		return 0, 0, &wire.Error{Code: wire.NotReady, Message: fmt.Sprintf("limb %s was opened without perceive, so it keeps no framebuffer mirror", l.id),
			Next: "call open again for this machine with perceive: true"}
	}
	if state != wire.StateConnected {
		l.mu.Lock()
		defer l.mu.Unlock()
		return 0, 0, l.notConnectedLocked()
	}
	w, h = l.dsk.buf.Size()
	if w == 0 || h == 0 {
		return 0, 0, wire.Errorf(wire.NotReady, "limb %s has no frame yet; wait until connected", l.id)
	}
	return w, h, nil
}

// screenArea is the part of the w×h frame a screen request's form asks
// for, and its scale; for damage-crop with nothing repainted since the
// last read, the answer that says so (unchanged) instead.
func screenArea(c *opCall, a wire.ScreenArgs, w, h int) (region image.Rectangle, scale float64, unchanged *wire.ScreenAnswer, err error) {
	full := image.Rect(0, 0, w, h)
	form := a.Form
	if form == "" {
		form = "full"
	}
	if a.Region != nil && form != "region" {
		return full, 1, nil, wire.Errorf(wire.BadRequest, "region is used with form: region only")
	}
	switch form {
	case "region":
		g := a.Region // required, and scale refused, by the spec
		region = image.Rect(g.X, g.Y, g.X+g.W, g.Y+g.H)
		if g.W <= 0 || g.H <= 0 || !region.In(full) {
			return full, 1, nil, wire.Errorf(wire.OutOfBounds, "region %dx%d+%d+%d is not inside the %dx%d framebuffer", g.W, g.H, g.X, g.Y, w, h)
		}
		return region, 1, nil, nil
	case "damage-crop":
		region, unchanged = damageCrop(c, full)
		return region, 1, unchanged, nil
	}
	scale, err = fullScale(a, w, h)
	return full, scale, nil, err
}

// fullScale is a full screen's scale: the one asked for, or the one that
// fits maxEdge and maxPixels.
func fullScale(a wire.ScreenArgs, w, h int) (float64, error) {
	switch {
	case a.Scale != nil:
		if s := *a.Scale; !(s > 0 && s <= 1) {
			return 0, wire.Errorf(wire.BadRequest, "scale must be in (0, 1]")
		}
		return *a.Scale, nil
	case a.MaxEdge != nil || a.MaxPixels != nil:
		return imaging.FitScale(w, h, deref(a.MaxEdge), deref(a.MaxPixels)), nil
	}
	return 1, nil
}

// damageCrop is what was repainted since this attachment's last read
// (the whole frame before its first read or after a resize), or the
// answer that nothing was.
func damageCrop(c *opCall, full image.Rectangle) (image.Rectangle, *wire.ScreenAnswer) {
	l := c.l
	l.mu.Lock()
	f := l.fenceForLocked(c.att)
	read := f.Read
	l.mu.Unlock()
	dmg := f.Damage()
	if read && dmg.Bounds.Empty() {
		r := &wire.ScreenAnswer{}
		r.Screen = &wire.Screen{Unchanged: true, Coverage: round3(l.dsk.buf.Coverage()), Generation: l.generation(),
			ImageSpace:     wire.ImageSpace{Scale: 1, Native: wire.Size{W: full.Dx(), H: full.Dy()}},
			ImageSpaceLine: "unchanged: nothing repainted since this attachment's last read; no image"}
		r.Observation = l.observe(c.att)
		return full, r
	}
	if read && !dmg.Resized {
		return dmg.Bounds.Intersect(full), nil
	}
	return full, nil
}

// deliverScreen puts the image where the request asked: written to out,
// or inline when it fits.
func deliverScreen(scr *wire.Screen, out string, data []byte, scale float64) error {
	if out == "" && len(data) > screenInlineMax {
		return tooLargeInline(len(data), scale)
	}
	if out == "" {
		scr.DataBase64 = base64.StdEncoding.EncodeToString(data)
		return nil
	}
	if err := writeFileAtomic(out, data); err != nil {
		return wire.Errorf(wire.BadRequest, "write %s: %v", out, err)
	}
	scr.Path = out
	return nil
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
func opScreenTerminal(c *opCall, _ wire.ScreenArgs) (*wire.ScreenAnswer, error) {
	term, err := c.l.liveTerminal()
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
