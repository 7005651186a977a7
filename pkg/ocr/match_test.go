package ocr

import (
	"image"
	"strings"
	"testing"
)

func line(words ...Word) Line {
	l := Line{Words: words}
	for _, w := range words {
		l.Box = l.Box.Union(w.Box)
	}
	return l
}

func word(text string, x, y, w, h int, conf float64) Word {
	return Word{Text: text, Box: image.Rect(x, y, x+w, y+h), Conf: conf}
}

func TestFind(t *testing.T) {
	lines := []Line{
		line(word("File", 10, 10, 40, 12, 0.9), word("saved.", 55, 10, 60, 12, 0.8), word("Save", 120, 10, 40, 12, 0.95), word("as", 165, 10, 20, 12, 0.7)),
		line(word("[OK]", 100, 40, 40, 14, 0.6), word("Cancel", 150, 40, 60, 14, 0.9)),
		line(word("ok", 300, 300, 20, 12, 0.99)),
	}
	cases := []struct {
		q     string
		boxes []image.Rectangle
		confs []float64
		texts []string
	}{
		{"Save as", []image.Rectangle{image.Rect(120, 10, 185, 22)}, []float64{0.7}, []string{"Save as"}},
		{"save   AS", []image.Rectangle{image.Rect(120, 10, 185, 22)}, []float64{0.7}, []string{"Save as"}},
		{"saved", []image.Rectangle{image.Rect(55, 10, 105, 22)}, []float64{0.8}, []string{"saved."}},
		// Two places: inside the bracketed word (narrowed) and the bare one.
		{"OK", []image.Rectangle{image.Rect(110, 40, 130, 54), image.Rect(300, 300, 320, 312)}, []float64{0.6, 0.99}, []string{"[OK]", "ok"}},
		{"saved. Save", []image.Rectangle{image.Rect(55, 10, 160, 22)}, []float64{0.8}, []string{"saved. Save"}},
		{"as [OK]", nil, nil, nil}, // never across lines
		{"", nil, nil, nil},
		{"   ", nil, nil, nil},
		{"missing", nil, nil, nil},
	}
	for _, c := range cases {
		got := Find(lines, c.q)
		if len(got) != len(c.boxes) {
			t.Errorf("%q: %d matches %+v, want %d", c.q, len(got), got, len(c.boxes))
			continue
		}
		for i, m := range got {
			if m.Box != c.boxes[i] || m.Conf != c.confs[i] || m.Text != c.texts[i] {
				t.Errorf("%q #%d: %+v, want box %v conf %v text %q", c.q, i, m, c.boxes[i], c.confs[i], c.texts[i])
			}
		}
	}
}

func TestParseTSV(t *testing.T) {
	tsv := "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n" +
		"1\t1\t0\t0\t0\t0\t0\t0\t640\t100\t-1\t\n" +
		"4\t1\t1\t1\t1\t0\t20\t20\t200\t24\t-1\t\n" +
		"5\t1\t1\t1\t1\t1\t20\t20\t80\t24\t96.5\tHello\n" +
		"5\t1\t1\t1\t1\t2\t110\t20\t110\t24\t91\tworld\n" +
		"5\t1\t1\t1\t1\t3\t230\t20\t10\t24\t95\t \n" + // blank word: dropped
		"5\t1\t1\t1\t2\t1\t20\t60\t60\t24\t-1\tNext\n" + // conf clamped to 0
		"5\t1\t1\t1\t2\t2\tx\t60\t60\t24\t50\tbad\n" + // malformed: dropped
		"5\t1\t1\t1\t2\t3\t90\t60\t0\t24\t50\tzero\n" + // empty box: dropped
		"5\t1\t1\t1\t2\t4\t90\t60\t40\n" // short row: dropped
	lines := parseTSV([]byte(tsv))
	if len(lines) != 2 {
		t.Fatalf("lines %+v", lines)
	}
	if lines[0].Text() != "Hello world" || lines[0].Box != image.Rect(20, 20, 220, 44) || lines[0].Words[0].Conf != 0.965 {
		t.Fatalf("line 0 %+v", lines[0])
	}
	if lines[1].Text() != "Next" || lines[1].Words[0].Conf != 0 {
		t.Fatalf("line 1 %+v", lines[1])
	}
}

// TestParseTSVChars: dvvocr's level-6 rows become a word's characters only
// when they spell it; the program's TSV, without them, gives words alone.
func TestParseTSVChars(t *testing.T) {
	const word = "5\t1\t1\t1\t1\t1\t20\t20\t30\t24\t80\tab_1\n"
	rows := func(texts ...string) string {
		out := ""
		for i, c := range texts {
			out += "6\t1\t1\t1\t1\t1\t" + itoa(20+i*7) + "\t20\t7\t24\t99.5\t" + c + "\n"
		}
		return out
	}
	for _, tc := range []struct {
		name string
		tsv  string
		want string // the characters' texts joined by |, "" for none
	}{
		{"spelled", word + rows("a", "b", "_", "1"), "a|b|_|1"},
		{"before their word", rows("a", "b", "_", "1") + word, "a|b|_|1"},
		{"no characters (the program)", word, ""},
		{"one missing", word + rows("a", "b", "1"), ""},
		{"one too many", word + rows("a", "b", "_", "1", "1"), ""},
		{"misspelled", word + rows("a", "d", "_", "1"), ""},
		{"another word's", word + strings.ReplaceAll(rows("a", "b", "_", "1"), "\t1\t1\t1\t1\t1\t", "\t1\t1\t1\t1\t2\t"), ""},
		{"malformed box", word + strings.Replace(rows("a", "b", "_", "1"), "\t27\t", "\tx\t", 1), ""},
		{"empty box", word + strings.Replace(rows("a", "b", "_", "1"), "\t7\t", "\t0\t", 1), ""},
		{"confidence not a number", word + strings.Replace(rows("a", "b", "_", "1"), "99.5", "NaN", 1), ""},
		{"blank character", word + rows("a", " ", "b", "_", "1"), "a|b|_|1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines := parseTSV([]byte(tc.tsv))
			if len(lines) != 1 || len(lines[0].Words) != 1 || lines[0].Words[0].Text != "ab_1" {
				t.Fatalf("lines %+v", lines)
			}
			var got []string
			for _, c := range lines[0].Words[0].chars {
				got = append(got, c.text)
			}
			if strings.Join(got, "|") != tc.want {
				t.Fatalf("characters %q, want %q", got, tc.want)
			}
		})
	}
	lines := parseTSV([]byte(word + rows("a", "b", "_", "1")))
	c := lines[0].Words[0].chars[1]
	if c.box != image.Rect(27, 20, 34, 44) || c.conf != 0.995 {
		t.Fatalf("second character %+v", c)
	}
	if dropChars(lines)[0].Words[0].chars != nil {
		t.Fatal("dropChars kept them")
	}
}

func FuzzParseTSV(f *testing.F) {
	f.Add([]byte("5\t1\t1\t1\t1\t1\t20\t20\t80\t24\t96.5\tHello\n"))
	f.Add([]byte("5\t1\t1\t1\t1\t1\t-5\t99999999999\t80\t24\tNaN\tx\n"))
	f.Add([]byte("5\t1\t1\t1\t1\t1\t20\t20\t14\t24\t60\tab\n6\t1\t1\t1\t1\t1\t20\t20\t7\t24\t99.1\ta\n6\t1\t1\t1\t1\t1\t27\t20\t7\t24\t98\tb\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, l := range parseTSV(data) {
			if len(l.Words) == 0 {
				t.Fatal("empty line")
			}
			for _, w := range l.Words {
				if w.Box.Empty() || !(w.Conf >= 0 && w.Conf <= 1) || w.Text == "" {
					t.Fatalf("bad word %+v", w)
				}
				if w.chars != nil && !spells(w.chars, w.Text) {
					t.Fatalf("characters %+v do not spell %q", w.chars, w.Text)
				}
				for _, c := range w.chars {
					if c.box.Empty() || !(c.conf >= 0 && c.conf <= 1) || c.text == "" {
						t.Fatalf("bad character %+v", c)
					}
				}
				Find([]Line{l}, w.Text)
			}
		}
	})
}

func FuzzFind(f *testing.F) {
	f.Add("Save as", "Save", "as")
	f.Add("ß", "SS", "ẞ")
	f.Fuzz(func(t *testing.T, q, a, b string) {
		l := line(word(a, 0, 0, 30, 10, 0.5), word(b, 40, 0, 30, 10, 0.5))
		for _, m := range Find([]Line{l}, q) {
			if !m.Box.In(l.Box) || m.Box.Empty() {
				t.Fatalf("match %+v outside line %v", m, l.Box)
			}
		}
	})
}

func TestJoinRows(t *testing.T) {
	w := func(s string, x0, y0, x1, y1 int) Line {
		r := image.Rect(x0, y0, x1, y1)
		return Line{Words: []Word{{Text: s, Box: r, Conf: 1}}, Box: r}
	}
	lines := []Line{
		w("4096 May 20", 10, 10, 100, 24), // cut at a terminal's double space
		w("2026 libegl1", 116, 11, 200, 24),
		w("# a comment", 400, 10, 480, 24), // far to the right: a column of its own
		w("next row", 10, 30, 80, 44),
	}
	got := joinRows(lines)
	if len(got) != 3 || got[0].Text() != "4096 May 20 2026 libegl1" || got[1].Text() != "# a comment" {
		t.Fatalf("%v", got)
	}
	if m := Find(got, "May 20 2026"); len(m) != 1 {
		t.Fatalf("a query across the gap: %v", m)
	}
}

// TestFindRanksWholeWordsFirst: a match at word edges ("sin" alone, "Save"
// before a colon) says so and comes before one inside a longer word
// ("using", "Saved"), whatever their order on the screen.
func TestFindRanksWholeWordsFirst(t *testing.T) {
	lines := []Line{
		line(word("Do", 10, 10, 20, 12, 0.9), word("using", 35, 10, 50, 12, 0.9), word("closing?", 90, 10, 70, 12, 0.9)),
		line(word("Saved", 10, 40, 50, 12, 0.9), word("Save:", 70, 40, 45, 12, 0.9)),
		line(word("sin", 10, 80, 30, 12, 0.9), word("+/-", 50, 80, 30, 12, 0.9)),
	}
	for _, c := range []struct {
		q     string
		texts []string
		whole []bool
	}{
		{"sin", []string{"sin", "using", "closing?"}, []bool{true, false, false}}, // the issue: "sin" answered "closing?"
		{"save", []string{"Save:", "Saved"}, []bool{true, false}},
		{"closing", []string{"closing?"}, []bool{true}},
		{"losing", []string{"closing?"}, []bool{false}},
		{"+/-", []string{"+/-"}, []bool{true}},
		{"sin +/", []string{"sin +/-"}, []bool{true}}, // ends between two marks: not inside a word
	} {
		ms := Find(lines, c.q)
		if len(ms) != len(c.texts) {
			t.Fatalf("%q: %d matches %+v, want %v", c.q, len(ms), ms, c.texts)
		}
		for i, m := range ms {
			if m.Text != c.texts[i] || m.Whole != c.whole[i] {
				t.Errorf("%q match %d: %q whole %v, want %q whole %v", c.q, i, m.Text, m.Whole, c.texts[i], c.whole[i])
			}
		}
	}
}
