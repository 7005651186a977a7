package ocr

import (
	"image"
	"strings"
	"unicode/utf8"
)

// Match is one place a query was read.
type Match struct {
	Text string          // the words as read (the whole words the match touches)
	Box  image.Rectangle // the matched characters' box, framebuffer pixels
	Conf float64         // the least confident word of the match, 0..1
}

// Center is the middle of the match's box.
func (m Match) Center() image.Point {
	return image.Pt((m.Box.Min.X+m.Box.Max.X)/2, (m.Box.Min.Y+m.Box.Max.Y)/2)
}

// normalize folds case and collapses runs of white space, so "Save  as"
// finds "save as": recognition does not keep spacing, and UI text is
// capitalised in whatever way a toolkit likes.
func normalize(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// Find returns every place query occurs within one line, in reading order
// (lines as given, left to right). A match may start or end inside a word
// ("Save" in "Saved:"): its box is then narrowed in proportion to the
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
			out = append(out, matchAt(l, text, starts, i, i+len(q)))
			from = i + len(q)
		}
	}
	return out
}

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
