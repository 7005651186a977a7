package ocr

import (
	"bufio"
	"bytes"
	"image"
	"strconv"
	"strings"
)

// Word is one recognised word: its text, its box and the engine's
// confidence in it (0..1).
type Word struct {
	Text string
	Box  image.Rectangle
	Conf float64
	// chars are the word's characters, when the engine said them (dvvocr
	// does, the tesseract program does not): only the glyph dictionary
	// learns from them, and they are never part of an answer.
	chars []char
}

// char is one character of a word as the engine read it.
type char struct {
	text string
	box  image.Rectangle
	conf float64
}

// Line is a run of words the engine put on one text line, left to right.
type Line struct {
	Words []Word
	Box   image.Rectangle
}

// Text is the line's words joined by single spaces.
func (l Line) Text() string {
	parts := make([]string, len(l.Words))
	for i, w := range l.Words {
		parts[i] = w.Text
	}
	return strings.Join(parts, " ")
}

// maxWords bounds what one recognition may return: a hostile or broken
// engine output cannot grow memory without limit.
const (
	maxWords = 20000
	maxChars = 16 * maxWords
)

// parseTSV reads tesseract's TSV output (level, page, block, par, line,
// word, left, top, width, height, conf, text) and groups the words into
// lines. Rows of level 6, which dvvocr adds, are a word's characters (same
// page to word numbers); they are kept only when they spell the word
// exactly. Other rows, words with no visible text and malformed rows are
// skipped: the output is the engine's, not trusted.
func parseTSV(data []byte) []Line {
	var lines []Line
	key := ""
	words, nchars := 0, 0
	type at struct{ line, word int }
	wordAt := map[string]at{}
	chars := map[string][]char{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() && words < maxWords {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 12 || (f[0] != "5" && f[0] != "6") {
			continue
		}
		text := strings.TrimSpace(strings.Join(f[11:], " "))
		box, conf, ok := parseBox(f)
		if !ok || text == "" {
			continue
		}
		wk := strings.Join(f[1:6], ".")
		if f[0] == "6" {
			if nchars < maxChars {
				chars[wk] = append(chars[wk], char{text: text, box: box, conf: conf})
				nchars++
			}
			continue
		}
		w := Word{Text: text, Box: box, Conf: conf}
		k := f[1] + "." + f[2] + "." + f[3] + "." + f[4]
		if k != key || len(lines) == 0 {
			lines = append(lines, Line{})
			key = k
		}
		l := &lines[len(lines)-1]
		if _, dup := wordAt[wk]; !dup {
			wordAt[wk] = at{len(lines) - 1, len(l.Words)}
		}
		l.Words = append(l.Words, w)
		l.Box = l.Box.Union(w.Box)
		words++
	}
	for wk, cs := range chars {
		if a, ok := wordAt[wk]; ok && spells(cs, lines[a.line].Words[a.word].Text) {
			lines[a.line].Words[a.word].chars = cs
		}
	}
	return lines
}

// parseBox reads a row's box and confidence (0..1); ok is false for a
// malformed or empty box or a confidence that is not a number.
func parseBox(f []string) (image.Rectangle, float64, bool) {
	var n [4]int
	for i := range n {
		v, err := strconv.Atoi(f[6+i])
		if err != nil || v < 0 || v > 1<<20 {
			return image.Rectangle{}, 0, false
		}
		n[i] = v
	}
	conf, err := strconv.ParseFloat(f[10], 64)
	if err != nil || conf != conf || n[2] == 0 || n[3] == 0 { // conf != conf: NaN
		return image.Rectangle{}, 0, false
	}
	return image.Rect(n[0], n[1], n[0]+n[2], n[1]+n[3]), min(max(conf/100, 0), 1), true
}

// spells reports whether the characters, in order, are the word's text.
func spells(cs []char, text string) bool {
	for _, c := range cs {
		rest, ok := strings.CutPrefix(text, c.text)
		if !ok {
			return false
		}
		text = rest
	}
	return text == ""
}

// dropChars forgets the words' characters once the glyph dictionary has
// learned from them: what a reader keeps and answers holds words only.
func dropChars(lines []Line) []Line {
	for i := range lines {
		for j := range lines[i].Words {
			lines[i].Words[j].chars = nil
		}
	}
	return lines
}
