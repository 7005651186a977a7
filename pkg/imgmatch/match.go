// Package imgmatch finds a small picture (a template: a button, an icon) in
// a framebuffer, for waits that end when something is drawn. It is pure
// Go, works on RGBA pixels in place, and searches only where a change
// could have put the template. It knows nothing of leases or fences.
package imgmatch

import (
	"errors"
	"image"
	"image/draw"
	"sort"
)

// MaxSide bounds either side of a template.
const MaxSide = 1024

// ErrTemplateSize is returned for an empty template or one over MaxSide.
var ErrTemplateSize = errors.New("imgmatch: a template must be between 1x1 and 1024x1024 pixels")

// Template is a picture prepared for searching.
type Template struct {
	w, h  int
	rgb   []uint8 // 3 bytes a pixel, row-major
	order []int32 // pixel indices, most distinctive first
}

// NewTemplate prepares img. Pixels are compared by colour; alpha is ignored.
func NewTemplate(img image.Image) (*Template, error) {
	b := img.Bounds()
	if b.Dx() < 1 || b.Dy() < 1 || b.Dx() > MaxSide || b.Dy() > MaxSide {
		return nil, ErrTemplateSize
	}
	rgba := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(rgba, rgba.Bounds(), img, b.Min, draw.Src)
	t := &Template{w: b.Dx(), h: b.Dy(), rgb: make([]uint8, b.Dx()*b.Dy()*3)}
	var mean [3]int
	for i := 0; i < t.w*t.h; i++ {
		p := rgba.Pix[(i/t.w)*rgba.Stride+(i%t.w)*4:]
		for c := 0; c < 3; c++ {
			t.rgb[i*3+c] = p[c]
			mean[c] += int(p[c])
		}
	}
	n := t.w * t.h
	dist := make([]int, n)
	t.order = make([]int32, n)
	for i := range n {
		for c := 0; c < 3; c++ {
			dist[i] += abs(int(t.rgb[i*3+c]) - mean[c]/n)
		}
		t.order[i] = int32(i)
	}
	// Pixels far from the template's mean colour first: on a background
	// they differ most, so a wrong place is given up after a few pixels.
	sort.SliceStable(t.order, func(a, b int) bool { return dist[t.order[a]] > dist[t.order[b]] })
	return t, nil
}

// Size is the template's width and height.
func (t *Template) Size() (w, h int) { return t.w, t.h }

// Match is where a template was found.
type Match struct {
	At    image.Point // top-left corner in the frame
	Score float64     // similarity, 0..1 (1: every pixel equal)
}

// Search looks for the template in a frame (RGBA pixels with the given
// stride and size) at every top-left corner inside corners, and returns
// the most similar place whose score is at least threshold. The score is
// 1 minus the mean absolute colour difference over 255.
//
// Two things keep it fast. A summed-area table of the searched part of the
// frame gives, per place, each grid cell's colour total in four lookups;
// the differences of those totals from the template's are a lower bound of
// the place's difference, and most places fail it without a pixel read.
// The rest are compared pixel by pixel, most distinctive pixels first, and
// given up as soon as the difference exceeds what the threshold (or the
// best place so far) allows.
func (t *Template) Search(pix []byte, stride, w, h int, corners image.Rectangle, threshold float64) (Match, bool) {
	// A template larger than the frame fits nowhere (and image.Rect would
	// swap a negative size into a rectangle left of or above the frame).
	if t.w > w || t.h > h {
		return Match{}, false
	}
	corners = corners.Intersect(image.Rect(0, 0, w-t.w+1, h-t.h+1))
	if corners.Empty() || len(pix) < (h-1)*stride+w*4 {
		return Match{}, false
	}
	threshold = min(max(threshold, 0), 1)
	total := int64(t.w) * int64(t.h) * 765
	budget := int64((1 - threshold) * float64(total))
	area := image.Rect(corners.Min.X, corners.Min.Y, corners.Max.X+t.w-1, corners.Max.Y+t.h-1)
	sat := newSAT(pix, stride, area)
	cells := t.cells()
	offs := make([]int, len(t.order))
	for k, i := range t.order {
		offs[k] = int(i)/t.w*stride + int(i)%t.w*4
	}
	best, found := Match{}, false
	for y := corners.Min.Y; y < corners.Max.Y; y++ {
		for x := corners.Min.X; x < corners.Max.X; x++ {
			var bound int64
			for _, c := range cells {
				d := sat.sum(c.r.Add(image.Pt(x, y))) - c.sum
				if d < 0 {
					d = -d
				}
				if bound += d; bound > budget {
					break
				}
			}
			if bound > budget {
				continue
			}
			sad, ok := t.diff(pix[y*stride+x*4:], offs, budget)
			if !ok {
				continue
			}
			score := 1 - float64(sad)/float64(total)
			if !found || score > best.Score {
				best, found = Match{At: image.Pt(x, y), Score: score}, true
				budget = sad // only a closer place can win now
				if sad == 0 {
					return best, true
				}
			}
		}
	}
	return best, found
}

// diff sums the absolute colour differences of the template placed at
// base (the frame from the place's top-left pixel on), giving up once the
// sum exceeds budget.
func (t *Template) diff(base []byte, offs []int, budget int64) (int64, bool) {
	var sad int64
	for k, i := range t.order {
		p := base[offs[k]:]
		q := t.rgb[int(i)*3:]
		sad += int64(abs(int(p[0])-int(q[0])) + abs(int(p[1])-int(q[1])) + abs(int(p[2])-int(q[2])))
		if sad > budget {
			return sad, false
		}
	}
	return sad, true
}

// cell is one part of the template grid and its colour total (R+G+B).
type cell struct {
	r   image.Rectangle
	sum int64
}

// grid is the number of cells per side the lower bound uses.
const grid = 4

func (t *Template) cells() []cell {
	var out []cell
	gx, gy := min(grid, t.w), min(grid, t.h)
	for j := 0; j < gy; j++ {
		for i := 0; i < gx; i++ {
			r := image.Rect(i*t.w/gx, j*t.h/gy, (i+1)*t.w/gx, (j+1)*t.h/gy)
			var s int64
			for y := r.Min.Y; y < r.Max.Y; y++ {
				for x := r.Min.X; x < r.Max.X; x++ {
					q := t.rgb[(y*t.w+x)*3:]
					s += int64(q[0]) + int64(q[1]) + int64(q[2])
				}
			}
			out = append(out, cell{r: r, sum: s})
		}
	}
	return out
}

// sat is a summed-area table of R+G+B over a part of the frame.
type sat struct {
	origin image.Point
	w      int
	v      []int64 // (w+1) x (h+1), v[0][*] = v[*][0] = 0
}

func newSAT(pix []byte, stride int, r image.Rectangle) *sat {
	s := &sat{origin: r.Min, w: r.Dx() + 1, v: make([]int64, (r.Dx()+1)*(r.Dy()+1))}
	for y := 0; y < r.Dy(); y++ {
		row := pix[(r.Min.Y+y)*stride+r.Min.X*4:]
		var acc int64
		up := s.v[y*s.w:]
		cur := s.v[(y+1)*s.w:]
		for x := 0; x < r.Dx(); x++ {
			p := row[x*4:]
			acc += int64(p[0]) + int64(p[1]) + int64(p[2])
			cur[x+1] = up[x+1] + acc
		}
	}
	return s
}

// sum is the total of R+G+B over r (frame coordinates, inside the table).
func (s *sat) sum(r image.Rectangle) int64 {
	r = r.Sub(s.origin)
	return s.v[r.Max.Y*s.w+r.Max.X] - s.v[r.Min.Y*s.w+r.Max.X] - s.v[r.Max.Y*s.w+r.Min.X] + s.v[r.Min.Y*s.w+r.Min.X]
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// Corners is the set of top-left corners at which a template of size
// tw x th would overlap rectangle r: where a change in r could have made
// it appear.
func Corners(r image.Rectangle, tw, th int) image.Rectangle {
	return image.Rect(r.Min.X-tw+1, r.Min.Y-th+1, r.Max.X, r.Max.Y)
}
