package ocr

import (
	"image"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Match is one place a query was read.
type Match struct {
	Text string          // the words as read (the whole words the match touches)
	Box  image.Rectangle // the matched characters' box, framebuffer pixels
	Conf float64         // the least confident word of the match, 0..1
	// Whole: the match begins and ends at word edges ("Save" in "Save" or
	// "Save:"), not inside a longer word ("Save" in "Saved", "sin" in
	// "using").
	Whole bool
}

// Center is the middle of the match's box.
func (m Match) Center() image.Point {
	return image.Pt((m.Box.Min.X+m.Box.Max.X)/2, (m.Box.Min.Y+m.Box.Max.Y)/2)
}

// normalize folds case and collapses runs of white space, so "Save  as"
// finds "save as": recognition does not keep spacing, and UI text is
// capitalised in whatever way a toolkit likes.
func normalize(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// Find returns every place query occurs within one line: whole-word
// matches first, then matches inside a longer word, each group in reading
// order (lines as given, left to right). A match may start or end inside a
// word ("Save" in "Saved:"): its box is then narrowed in proportion to the
// characters, which is close enough for a click on proportional UI fonts.
func Find(lines []Line, query string) []Match {
	q := normalize(query)
	if q == "" {
		return nil
	}
	var out []Match
	for _, l := range lines {
		// The line's text in normal form, and where each word starts in it.
		var sb strings.Builder
		starts := make([]int, len(l.Words))
		for i, w := range l.Words {
			if i > 0 {
				sb.WriteByte(' ')
			}
			starts[i] = sb.Len()
			sb.WriteString(normalize(w.Text))
		}
		text := sb.String()
		for from := 0; from <= len(text)-len(q); {
			i := strings.Index(text[from:], q)
			if i < 0 {
				break
			}
			i += from
			m := matchAt(l, text, starts, i, i+len(q))
			m.Whole = wordEdge(text, i, true) && wordEdge(text, i+len(q), false)
			out = append(out, m)
			from = i + len(q)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Whole && !out[j].Whole })
	return out
}

// wordEdge reports whether byte i of text is a word's edge: for a start,
// the rune before it is not a letter or digit (or there is none); for an
// end, the rune at it is not. Punctuation is an edge ("closing?" holds the
// whole word "closing"), and so is a query's own edge that is not a letter
// or digit ("+/-").
func wordEdge(text string, i int, start bool) bool {
	if start {
		if i == 0 {
			return true
		}
		r, _ := utf8.DecodeLastRuneInString(text[:i])
		q, _ := utf8.DecodeRuneInString(text[i:])
		return !wordRune(r) || !wordRune(q)
	}
	if i >= len(text) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	q, _ := utf8.DecodeLastRuneInString(text[:i])
	return !wordRune(r) || !wordRune(q)
}

func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// matchAt builds the match covering bytes [s, e) of the line's normal text.
func matchAt(l Line, text string, starts []int, s, e int) Match {
	m := Match{Conf: 1}
	var words []string
	for i, w := range l.Words {
		ws := starts[i]
		we := ws + len(normalize(w.Text))
		if we <= s || ws >= e {
			continue
		}
		words = append(words, w.Text)
		m.Conf = min(m.Conf, w.Conf)
		box := w.Box
		n := utf8.RuneCountInString(text[ws:we])
		if n > 0 {
			// Narrow to the covered characters, by their share of the word.
			a := utf8.RuneCountInString(text[ws:max(ws, s)])
			b := utf8.RuneCountInString(text[ws:min(we, e)])
			wd := box.Dx()
			box.Min.X, box.Max.X = w.Box.Min.X+wd*a/n, w.Box.Min.X+(wd*b+n-1)/n
		}
		m.Box = m.Box.Union(box)
	}
	m.Text = strings.Join(words, " ")
	return m
}

// maxJoin bounds joinRows' quadratic work.
const maxJoin = 4096

// joinRows puts pieces of one text row back into one line: blocks are cut
// at wide blank gaps (two spaces in a terminal, a tab stop), so the engine
// reads "4096 May 20" and "2026 libegl1" apart. Pieces of about the same
// height on the same row, less than three line heights apart, are one
// line again, so a query may span the gap. lines must be in reading order.
func joinRows(lines []Line) []Line {
	if len(lines) > maxJoin {
		return lines
	}
	var out []Line
	for _, l := range lines {
		joined := false
		for i := len(out) - 1; i >= 0 && !joined; i-- {
			o := &out[i]
			h := min(o.Box.Dy(), l.Box.Dy())
			overlap := min(o.Box.Max.Y, l.Box.Max.Y) - max(o.Box.Min.Y, l.Box.Min.Y)
			gap := l.Box.Min.X - o.Box.Max.X
			if h <= 0 || overlap*10 < h*6 || max(o.Box.Dy(), l.Box.Dy())*2 > h*3 || gap < -2 || gap > 3*h {
				continue
			}
			o.Words = append(o.Words, l.Words...)
			o.Box = o.Box.Union(l.Box)
			joined = true
		}
		if !joined {
			out = append(out, Line{Words: append([]Word(nil), l.Words...), Box: l.Box})
		}
	}
	return out
}

// readingOrder sorts lines top to bottom, and left to right on one row.
func readingOrder(lines []Line) {
	sort.SliceStable(lines, func(i, j int) bool {
		a, b := lines[i].Box, lines[j].Box
		if a.Max.Y <= b.Min.Y || b.Max.Y <= a.Min.Y {
			return a.Min.Y < b.Min.Y
		}
		return a.Min.X < b.Min.X
	})
}
