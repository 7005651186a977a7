package ocr

import (
	"image"
	"testing"
)

// grayOf builds a grey picture from rows of characters: '.' is paper
// (255), '#' is ink (0).
func grayOf(rows ...string) *gray {
	g := &gray{w: len(rows[0]), h: len(rows), pix: make([]uint8, len(rows[0])*len(rows))}
	for y, r := range rows {
		for x, c := range r {
			if c == '#' {
				g.pix[y*g.w+x] = 0
			} else {
				g.pix[y*g.w+x] = 255
			}
		}
	}
	g.markDetail()
	return g
}

func TestBlocks(t *testing.T) {
	wide := ".................................................."
	g := grayOf(
		wide,
		"..##..#...........................##..#...........",
		".#..#.#...........................#.#.#...........",
		".####.##..........................##..##..........",
		".#..#.#.#.........................#.#.#.#.........",
		"......##...........................#..#...........",
		wide,
		wide,
		"..#.##.#.#.###....................................",
		".#..#..#.#..#.....................................",
		".##.##.#.#..#.....................................",
		".#..#..#.#..#.....................................",
		"..#.#..###..#.....................................",
		wide,
	)
	got := g.blocks(image.Rect(0, 0, g.w, g.h), nil, 0)
	want := []image.Rectangle{
		image.Rect(1, 1, 9, 6),   // left word, its own block: a wide blank gap
		image.Rect(34, 1, 41, 6), // right word
		image.Rect(1, 8, 14, 13), // the line below
	}
	if len(got) != len(want) {
		t.Fatalf("blocks %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("block %d = %v, want %v", i, got[i], want[i])
		}
	}
	if b := grayOf(wide, wide, wide, wide, wide, wide).blocks(image.Rect(0, 0, len(wide), 6), nil, 0); len(b) != 0 {
		t.Errorf("a blank picture gave blocks %v", b)
	}
}

func TestEraseFrames(t *testing.T) {
	// A button: an outline around two glyphs. The outline goes, the glyphs stay.
	g := grayOf(
		"################",
		"#..............#",
		"#.###....###...#",
		"#.#.#....#.....#",
		"#.###....###...#",
		"#.#........#...#",
		"#.#......###...#",
		"#..............#",
		"#..............#",
		"#..............#",
		"################",
	)
	r := image.Rect(0, 0, g.w, g.h)
	dst := append([]byte(nil), g.pix...)
	eraseFrames(g, r, 255, 1, dst, g.w, image.Point{}, 255)
	for x := 0; x < g.w; x++ {
		if dst[x] != 255 || dst[(g.h-1)*g.w+x] != 255 {
			t.Fatalf("outline left at column %d", x)
		}
	}
	if dst[2*g.w+2] != 0 || dst[2*g.w+9] != 0 {
		t.Fatal("a glyph was erased")
	}
}

func FuzzSegment(f *testing.F) {
	f.Add([]byte{0, 255, 0, 255, 12, 200}, uint8(7))
	f.Fuzz(func(t *testing.T, pix []byte, w uint8) {
		width := int(w%64) + 1
		if len(pix) < width {
			return
		}
		h := min(len(pix)/width, 64)
		img := image.NewRGBA(image.Rect(0, 0, width, h))
		for i := 0; i < width*h; i++ {
			img.Pix[i*4], img.Pix[i*4+1], img.Pix[i*4+2], img.Pix[i*4+3] = pix[i], pix[i], pix[i], 0xff
		}
		blocks := segment(img, image.Pt(5, 5))
		c := &canvas{scale: 2}
		for _, b := range blocks {
			if !b.r.In(image.Rect(0, 0, width, h)) || b.r.Empty() {
				t.Fatalf("block %v outside %dx%d", b.r, width, h)
			}
			c.add(b)
		}
		if len(blocks) > 0 {
			c.draw() // draws without going out of bounds
		}
	})
}
