package vtscreen

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestCellsCarryColoursAndWidths(t *testing.T) {
	s := New(10, 2, nil)
	defer s.Close()
	s.Write([]byte("\x1b[31mR\x1b[0m\x1b[7mV\x1b[0m\u4e16X\r\n\x1b[1;44mB"))
	got := map[[2]int]Cell{}
	s.Cells(func(x, y int, c Cell) { got[[2]int{x, y}] = c })
	if c := got[[2]int{0, 0}]; c.Text != "R" || c.Fg != ansi.BasicColor(1) || c.Bg != nil {
		t.Errorf("red R: %+v", c)
	}
	if c := got[[2]int{1, 0}]; c.Text != "V" || c.Fg != DefaultBg || c.Bg != DefaultFg {
		t.Errorf("reverse V: %+v", c)
	}
	if c := got[[2]int{2, 0}]; c.Text != "\u4e16" || c.Width != 2 {
		t.Errorf("wide character: %+v", c)
	}
	if _, ok := got[[2]int{3, 0}]; ok {
		t.Errorf("the wide character's right half was visited")
	}
	if c := got[[2]int{4, 0}]; c.Text != "X" {
		t.Errorf("after the wide character: %+v", c)
	}
	if c := got[[2]int{0, 1}]; c.Text != "B" || !c.Bold || c.Bg != ansi.BasicColor(4) {
		t.Errorf("bold on blue: %+v", c)
	}
	if x, y := s.Cursor(); x != 1 || y != 1 {
		t.Errorf("cursor at %d,%d, want 1,1", x, y)
	}
}
