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
const maxWords = 20000

// parseTSV reads tesseract's TSV output (level, page, block, par, line,
// word, left, top, width, height, conf, text) and groups the words into
// lines. Rows that are not words, words with no visible text and malformed
// rows are skipped: the output is the engine's, not trusted.
func parseTSV(data []byte) []Line {
	var lines []Line
	key := ""
	words := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() && words < maxWords {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 12 || f[0] != "5" {
			continue
		}
		text := strings.TrimSpace(strings.Join(f[11:], " "))
		if text == "" {
			continue
		}
		var n [4]int
		bad := false
		for i := range n {
			v, err := strconv.Atoi(f[6+i])
			if err != nil || v < 0 || v > 1<<20 {
				bad = true
				break
			}
			n[i] = v
		}
		conf, err := strconv.ParseFloat(f[10], 64)
		if bad || err != nil || conf != conf || n[2] == 0 || n[3] == 0 { // conf != conf: NaN
			continue
		}
		conf = min(max(conf/100, 0), 1)
		w := Word{Text: text, Box: image.Rect(n[0], n[1], n[0]+n[2], n[1]+n[3]), Conf: conf}
		k := f[1] + "." + f[2] + "." + f[3] + "." + f[4]
		if k != key || len(lines) == 0 {
			lines = append(lines, Line{})
			key = k
		}
		l := &lines[len(lines)-1]
		l.Words = append(l.Words, w)
		l.Box = l.Box.Union(w.Box)
		words++
	}
	return lines
}
