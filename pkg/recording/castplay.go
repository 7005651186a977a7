package recording

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"os"

	"github.com/charmbracelet/x/ansi"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/vtscreen"
)

// CastEvent is one event of an asciicast v2 file.
type CastEvent struct {
	T    float64
	Code string // "o" output, "m" marker, "r" resize ("COLSxROWS")
	Data string
}

// CastHeader is an asciicast v2 file's first line.
type CastHeader struct {
	Version int `json:"version"`
	Width   int `json:"width"`
	Height  int `json:"height"`
}

// ReadCast reads an asciicast v2 file: its header and events. A last line
// being written is left out.
func ReadCast(path string) (CastHeader, []CastEvent, error) {
	var hdr CastHeader
	f, err := os.Open(path)
	if err != nil {
		return hdr, nil, err
	}
	defer f.Close()
	hdr, evs, err := DecodeCast(f)
	if err != nil {
		return hdr, evs, fmt.Errorf("%s: %w", path, err)
	}
	return hdr, evs, nil
}

// What a cast may claim. A terminal dvv records is at most 1000x1000 (the
// SSH limb's bound), and its events' times fit the 32-bit millisecond
// clock FBS files use too (49 days). A file beyond them would have an
// export size an emulator and frames after it, or render frames for ever.
const (
	maxCastGrid    = 1000
	maxCastSeconds = math.MaxUint32 / 1000
)

// DecodeCast reads an asciicast v2 recording from r (see ReadCast).
func DecodeCast(r io.Reader) (CastHeader, []CastEvent, error) {
	var hdr CastHeader
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	if !sc.Scan() {
		return hdr, nil, fmt.Errorf("empty: not an asciicast file")
	}
	if err := json.Unmarshal(sc.Bytes(), &hdr); err != nil || hdr.Version != 2 || hdr.Width <= 0 || hdr.Height <= 0 {
		return hdr, nil, fmt.Errorf("not an asciicast v2 file: its first line is not a v2 header")
	}
	if hdr.Width > maxCastGrid || hdr.Height > maxCastGrid {
		return hdr, nil, fmt.Errorf("the header's terminal is %dx%d, beyond any terminal dvv records (1..%d each way): not a recording dvv can play", hdr.Width, hdr.Height, maxCastGrid)
	}
	var evs []CastEvent
	for line := 2; sc.Scan(); line++ {
		var raw []json.RawMessage
		if json.Unmarshal(sc.Bytes(), &raw) != nil || len(raw) != 3 {
			break // a line being written
		}
		var e CastEvent
		if json.Unmarshal(raw[0], &e.T) != nil || json.Unmarshal(raw[1], &e.Code) != nil || json.Unmarshal(raw[2], &e.Data) != nil {
			break
		}
		if !(e.T >= 0 && e.T <= maxCastSeconds) {
			return hdr, evs, fmt.Errorf("line %d: event time %g s is outside 0..%d s: not a recording dvv can play", line, e.T, maxCastSeconds)
		}
		evs = append(evs, e)
	}
	return hdr, evs, sc.Err()
}

var (
	termBg     = color.RGBA{0x1d, 0x1f, 0x21, 0xff}
	termFg     = color.RGBA{0xdd, 0xdd, 0xdd, 0xff}
	termCursor = color.RGBA{0x8a, 0xb4, 0xf8, 0xff}
)

// exportTerminal plays the cast's output into a terminal emulator and
// draws its grid, one frame per 1/fps seconds.
func exportTerminal(ctx context.Context, path, out string, fps int, acts []Act) error {
	hdr, evs, err := ReadCast(path)
	if err != nil {
		return err
	}
	w, h := hdr.Width*glyphW, hdr.Height*glyphH
	if err := fb.New().CheckSize(w, h); err != nil {
		return fmt.Errorf("a %dx%d terminal makes %dx%d frames, more than an export renders (%v)", hdr.Width, hdr.Height, w, h, err)
	}
	if w*h > maxVideoPixels {
		return fmt.Errorf("a %dx%d terminal makes %dx%d frames, more than an export renders (at most %d pixels, 3840x2160)", hdr.Width, hdr.Height, w, h, maxVideoPixels)
	}
	times := actTimes(acts)
	for _, e := range evs {
		times = append(times, msOf(e.T))
	}
	tl := newTimeline(times)
	var end uint32
	for _, e := range evs {
		end = max(end, tl.videoAt(msOf(e.T)))
	}
	if err := tl.check(end, fps); err != nil {
		return err
	}
	acts = tl.onVideoClock(acts)
	scr := vtscreen.New(hdr.Width, hdr.Height, nil)
	defer scr.Close()
	enc, err := startEncoder(ctx, w, h, fps, out)
	if err != nil {
		return err
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	next := 0
	var werr error
	for k := int64(0); werr == nil; k++ {
		v := uint32(k * 1000 / int64(fps))
		r := tl.recAt(v)
		for ; next < len(evs) && msOf(evs[next].T) <= r; next++ {
			if evs[next].Code == "o" {
				scr.Write([]byte(evs[next].Data))
			}
		}
		drawGrid(img, scr)
		drawActs(img, actsAt(acts, float64(v)/1000), true)
		werr = enc.frame(img)
		if v >= end {
			break
		}
	}
	return enc.finish(werr)
}

// drawGrid draws the screen's cells in their colours (bold brightens the
// eight basic ones, as xterm does), characters beyond the built-in ASCII
// font as a box of their width, and the cursor as an underline.
func drawGrid(img *image.RGBA, scr *vtscreen.Screen) {
	fillRect(img, img.Rect, termBg)
	scr.Cells(func(x, y int, c vtscreen.Cell) {
		fg, bg := cellColour(c.Fg, termFg, c.Bold), cellColour(c.Bg, termBg, false)
		box := image.Rect(x*glyphW, y*glyphH, (x+c.Width)*glyphW, (y+1)*glyphH)
		if bg != termBg {
			fillRect(img, box, bg)
		}
		switch r := []rune(c.Text); {
		case len(r) == 0 || r[0] == ' ':
		case len(r) == 1 && r[0] > ' ' && r[0] <= '~':
			drawText(img, box.Min.X, box.Min.Y, c.Text, fg, nil)
		default:
			drawBox(img, box.Inset(2), fg)
		}
	})
	cx, cy := scr.Cursor()
	fillRect(img, image.Rect(cx*glyphW, cy*glyphH+glyphH-3, cx*glyphW+glyphW, cy*glyphH+glyphH), termCursor)
}

// cellColour maps a cell's colour to a pixel: nil or the default marker is
// def, bold turns the eight basic colours into their bright halves.
func cellColour(c color.Color, def color.RGBA, bold bool) color.RGBA {
	switch c {
	case nil:
		return def
	case vtscreen.DefaultFg:
		return termFg
	case vtscreen.DefaultBg:
		return termBg
	}
	if b, ok := c.(ansi.BasicColor); ok && bold && b < 8 {
		c = b + 8
	}
	r, g, b, _ := c.RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0xff}
}

// drawBox outlines r one pixel wide.
func drawBox(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	fillRect(img, image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+1), c)
	fillRect(img, image.Rect(r.Min.X, r.Max.Y-1, r.Max.X, r.Max.Y), c)
	fillRect(img, image.Rect(r.Min.X, r.Min.Y, r.Min.X+1, r.Max.Y), c)
	fillRect(img, image.Rect(r.Max.X-1, r.Min.Y, r.Max.X, r.Max.Y), c)
}
