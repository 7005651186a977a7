package vtscreen

import (
	"image/color"

	uv "github.com/charmbracelet/ultraviolet"
)

// Cell is one visible cell as a renderer needs it: its text and width
// (2 for a wide character, whose right half is not visited), and its
// colours after bold and reverse video are applied. Fg or Bg nil means
// the terminal's default.
type Cell struct {
	Text   string // "" for a blank
	Width  int
	Fg, Bg color.Color
	Bold   bool
}

// Cells calls fn for each visible cell, row by row, skipping the right
// halves of wide characters. Reverse video is resolved: a reversed cell
// with default colours gets Fg = DefaultBg and Bg = DefaultFg markers.
func (s *Screen) Cells(fn func(x, y int, c Cell)) {
	s.hold.trim(s.rows, s.emu.CursorPosition().Y, s.margins.full(s.emu.IsAltScreen()), true)
	s.flush()
	for y := 0; y < s.rows; y++ {
		for x := 0; x < s.cols; x++ {
			c := s.emu.CellAt(x, y)
			switch {
			case c == nil:
				fn(x, y, Cell{Width: 1})
			case c.IsZero(): // the second half of a wide character
			default:
				out := Cell{Text: c.Content, Width: max(1, c.Width), Fg: c.Style.Fg, Bg: c.Style.Bg, Bold: c.Style.Attrs&uv.AttrBold != 0}
				if c.Style.Attrs&uv.AttrReverse != 0 {
					out.Fg, out.Bg = orDefault(out.Bg, DefaultBg), orDefault(out.Fg, DefaultFg)
				}
				fn(x, y, out)
			}
		}
	}
}

// Cursor is the cursor's column and row.
func (s *Screen) Cursor() (x, y int) {
	s.flush()
	p := s.emu.CursorPosition()
	return p.X, p.Y
}

// DefaultFg and DefaultBg stand for the terminal's default colours where
// reverse video moved them into the other slot; a renderer maps them to
// its own defaults.
var (
	DefaultFg color.Color = defaultColor(0)
	DefaultBg color.Color = defaultColor(1)
)

type defaultColor int

func (defaultColor) RGBA() (r, g, b, a uint32) { return 0, 0, 0, 0xffff }

func orDefault(c, d color.Color) color.Color {
	if c == nil {
		return d
	}
	return c
}
