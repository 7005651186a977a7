// Package imgmatch finds a small picture (a template: a button, an icon) in
// a framebuffer, for waits that end when something is drawn. It is pure
// Go, works on RGBA pixels in place, and searches only where a change
// could have put the template. It knows nothing of leases or fences.
package imgmatch

import (
	"errors"
	"fmt"
	"image"
	"image/draw"
	"math"
	"sort"
)

// MaxSide bounds either side of a template.
const MaxSide = 1024

// ErrTemplateSize is returned for an empty template or one over MaxSide.
var ErrTemplateSize = errors.New("imgmatch: a template must be between 1x1 and 1024x1024 pixels")

// A template must have detail to be found by: its colour values must vary
// (a standard deviation of at least MinDeviation, of 0..255) and at least
// MinDetailShare of its pixels, and MinDetailPixels, must stand out from
// its main colour (by more than detailDiff, R+G+B). Otherwise it is flat
// or nearly so (a patch of background, a dark area with a speck): it
// would be "found" on any area of that colour, or at any speck.
const (
	MinDeviation    = 6.0
	MinDetailShare  = 0.01
	MinDetailPixels = 16
	detailDiff      = 48
)

// FlatError refuses a template with too little detail to be found.
type FlatError struct {
	Deviation     float64 // the template's standard deviation, 0..255
	Detail, Total int     // pixels that stand out from the main colour, of all
}

func (e *FlatError) Error() string {
	return fmt.Sprintf("the template is flat: only %d of its %d pixels (%.2f%%) stand out from its main colour, and its colours vary by %.1f; "+
		"at least %.0f%% of the pixels (and %d) must, and a variation of %.0f, or it would match any area of that colour",
		e.Detail, e.Total, 100*float64(e.Detail)/float64(e.Total), e.Deviation, 100*MinDetailShare, MinDetailPixels, MinDeviation)
}

// detail counts the pixels of rgba (w x h) that stand out from its most
// common colour.
func detail(rgba *image.RGBA, w, h int) int {
	counts := map[[3]uint8]int{}
	var main [3]uint8
	for y := range h {
		for x := range w {
			p := rgba.Pix[y*rgba.Stride+x*4:]
			k := [3]uint8{p[0], p[1], p[2]}
			if counts[k]++; counts[k] > counts[main] {
				main = k
			}
		}
	}
	n := 0
	for k, c := range counts {
		d := 0
		for i := range 3 {
			d += max(int(k[i])-int(main[i]), int(main[i])-int(k[i]))
		}
		if d > detailDiff {
			n += c
		}
	}
	return n
}

// Template is a picture prepared for searching.
type Template struct {
	w, h  int
	n     float64   // number of colour values, 3 a pixel
	unit  []float64 // the colour values less their mean, divided by their norm: 3 a pixel
	order []int32   // pixel indices, most distinctive first
	cells []cell
}

// NewTemplate prepares img. Pixels are compared by colour; alpha is
// ignored. A template whose colours hardly vary is refused (*FlatError).
func NewTemplate(img image.Image) (*Template, error) {
	b := img.Bounds()
	if b.Dx() < 1 || b.Dy() < 1 || b.Dx() > MaxSide || b.Dy() > MaxSide {
		return nil, ErrTemplateSize
	}
	rgba := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(rgba, rgba.Bounds(), img, b.Min, draw.Src)
	w, h := b.Dx(), b.Dy()
	n := w * h
	rgb := make([]float64, n*3)
	var sum float64
	for i := range n {
		p := rgba.Pix[(i/w)*rgba.Stride+(i%w)*4:]
		for c := range 3 {
			rgb[i*3+c] = float64(p[c])
			sum += float64(p[c])
		}
	}
	mean := sum / float64(n*3)
	var norm2 float64
	for i := range rgb {
		rgb[i] -= mean
		norm2 += rgb[i] * rgb[i]
	}
	dev, stand := math.Sqrt(norm2/float64(n*3)), detail(rgba, w, h)
	if dev < MinDeviation || stand < MinDetailPixels || float64(stand) < MinDetailShare*float64(n) {
		return nil, &FlatError{Deviation: dev, Detail: stand, Total: n}
	}
	norm := math.Sqrt(norm2)
	t := &Template{w: w, h: h, n: float64(n * 3), unit: rgb, order: make([]int32, n)}
	dist := make([]float64, n)
	for i := range rgb {
		rgb[i] /= norm
		dist[i/3] += math.Abs(rgb[i])
	}
	for i := range n {
		t.order[i] = int32(i)
	}
	// Pixels far from the template's mean first: on a background they
	// differ most, so a wrong place is given up after a few pixels.
	sort.SliceStable(t.order, func(a, b int) bool { return dist[t.order[a]] > dist[t.order[b]] })
	t.cells = t.makeCells()
	return t, nil
}

// Size is the template's width and height.
func (t *Template) Size() (w, h int) { return t.w, t.h }

// Match is where a template was found.
type Match struct {
	At    image.Point // top-left corner in the frame
	Score float64     // similarity, 0..1 (1: the same picture)
}

// Search looks for the template in a frame (RGBA pixels with the given
// stride and size) at every top-left corner inside corners, and returns
// the most similar place whose score is at least threshold.
//
// The score is the zero-mean normalized cross-correlation of the place's
// colour values with the template's (below 0 counts as 0): 1 when the place
// is the template (or it, uniformly brighter or with more contrast), near 0
// for an unrelated place, whatever the share of background the two have in
// common. A place of one colour scores 0. With t and f the two value
// vectors less their means and divided by their norms, |t-f|² = 2(1-score),
// so a score of at least threshold is a squared distance of at most
// 2(1-threshold): the budget a place may spend.
//
// Two things keep it fast. Summed-area tables of the searched part of the
// frame give, per place, its mean and norm and each grid cell's total in a
// few lookups; the cells' differences from the template's give a lower
// bound of the distance (Cauchy-Schwarz per cell), and most places fail
// it without a pixel read. The rest are compared pixel by pixel, most
// distinctive pixels first, and given up as soon as the distance exceeds
// the budget (or the best place so far).
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
	budget := 2 * (1 - threshold)
	area := image.Rect(corners.Min.X, corners.Min.Y, corners.Max.X+t.w-1, corners.Max.Y+t.h-1)
	sat := newSAT(pix, stride, area)
	offs := make([]int, len(t.order))
	for k, i := range t.order {
		offs[k] = int(i)/t.w*stride + int(i)%t.w*4
	}
	whole := image.Rect(0, 0, t.w, t.h)
	best, found := Match{}, false
	for y := corners.Min.Y; y < corners.Max.Y; y++ {
		for x := corners.Min.X; x < corners.Max.X; x++ {
			at := image.Pt(x, y)
			sum, sq := sat.sum(whole.Add(at))
			mean := float64(sum) / t.n
			norm2 := float64(sq) - float64(sum)*mean
			if norm2 < 1e-6*t.n {
				continue // one colour: no correlation with anything
			}
			inv := 1 / math.Sqrt(norm2)
			var bound float64
			for _, c := range t.cells {
				cs, _ := sat.sum(c.r.Add(at))
				d := (float64(cs)-c.m*mean)*inv - c.sum
				if bound += d * d / c.m; bound > budget {
					break
				}
			}
			if bound > budget {
				continue
			}
			dist, ok := t.distance(pix[y*stride+x*4:], offs, mean, inv, budget)
			if !ok {
				continue
			}
			score := max(0, 1-dist/2)
			if !found || score > best.Score {
				best, found = Match{At: at, Score: score}, true
				budget = dist // only a closer place can win now
			}
		}
	}
	return best, found
}

// distance is |t-f|² for the place whose top-left pixel starts base, its
// values less mean times inv being f; it gives up once over budget.
func (t *Template) distance(base []byte, offs []int, mean, inv, budget float64) (float64, bool) {
	var d float64
	for k, i := range t.order {
		p := base[offs[k]:]
		q := t.unit[int(i)*3:]
		r := (float64(p[0])-mean)*inv - q[0]
		g := (float64(p[1])-mean)*inv - q[1]
		b := (float64(p[2])-mean)*inv - q[2]
		if d += r*r + g*g + b*b; d > budget {
			return d, false
		}
	}
	return d, true
}

// cell is one part of the template grid: its rectangle, its number of
// colour values and the total of the template's unit values over it.
type cell struct {
	r   image.Rectangle
	m   float64
	sum float64
}

// grid is the number of cells per side the lower bound uses.
const grid = 4

func (t *Template) makeCells() []cell {
	var out []cell
	gx, gy := min(grid, t.w), min(grid, t.h)
	for j := 0; j < gy; j++ {
		for i := 0; i < gx; i++ {
			r := image.Rect(i*t.w/gx, j*t.h/gy, (i+1)*t.w/gx, (j+1)*t.h/gy)
			var s float64
			for y := r.Min.Y; y < r.Max.Y; y++ {
				for x := r.Min.X; x < r.Max.X; x++ {
					q := t.unit[(y*t.w+x)*3:]
					s += q[0] + q[1] + q[2]
				}
			}
			out = append(out, cell{r: r, m: float64(r.Dx() * r.Dy() * 3), sum: s})
		}
	}
	return out
}

// sat is a summed-area table of R+G+B and of R²+G²+B² over a part of the
// frame.
type sat struct {
	origin image.Point
	w      int
	v      []int64 // (w+1) x (h+1), v[0][*] = v[*][0] = 0
	sq     []int64 // the same of the squares
}

func newSAT(pix []byte, stride int, r image.Rectangle) *sat {
	size := (r.Dx() + 1) * (r.Dy() + 1)
	s := &sat{origin: r.Min, w: r.Dx() + 1, v: make([]int64, size), sq: make([]int64, size)}
	for y := 0; y < r.Dy(); y++ {
		row := pix[(r.Min.Y+y)*stride+r.Min.X*4:]
		var acc, accSq int64
		up, upSq := s.v[y*s.w:], s.sq[y*s.w:]
		cur, curSq := s.v[(y+1)*s.w:], s.sq[(y+1)*s.w:]
		for x := 0; x < r.Dx(); x++ {
			p := row[x*4:]
			r, g, b := int64(p[0]), int64(p[1]), int64(p[2])
			acc += r + g + b
			accSq += r*r + g*g + b*b
			cur[x+1] = up[x+1] + acc
			curSq[x+1] = upSq[x+1] + accSq
		}
	}
	return s
}

// sum is the total of R+G+B and of their squares over r (frame
// coordinates, inside the table).
func (s *sat) sum(r image.Rectangle) (sum, sq int64) {
	r = r.Sub(s.origin)
	a, b, c, d := r.Max.Y*s.w+r.Max.X, r.Min.Y*s.w+r.Max.X, r.Max.Y*s.w+r.Min.X, r.Min.Y*s.w+r.Min.X
	return s.v[a] - s.v[b] - s.v[c] + s.v[d], s.sq[a] - s.sq[b] - s.sq[c] + s.sq[d]
}

// Corners is the set of top-left corners at which a template of size
// tw x th would overlap rectangle r: where a change in r could have made
// it appear.
func Corners(r image.Rectangle, tw, th int) image.Rectangle {
	return image.Rect(r.Min.X-tw+1, r.Min.Y-th+1, r.Max.X, r.Max.Y)
}
