// Package termstreams makes the byte streams a terminal sees, for
// equivalence tests and benchmarks of terminal emulation. Each is what a
// PTY passes on (ONLCR: "\r\n").
package termstreams

import (
	"fmt"
	"math/rand"
	"strings"
)

// PlainText is prose-like lines of ASCII.
func PlainText(size int) []byte {
	words := strings.Fields("the quick brown fox jumps over a lazy dog while compiling objects linking binaries and running tests")
	r := rand.New(rand.NewSource(1))
	var b strings.Builder
	for b.Len() < size {
		n := 3 + r.Intn(14)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[r.Intn(len(words))])
		}
		b.WriteString("\r\n")
	}
	return []byte(b.String())
}

// ColouredLs is `ls -l --color=always` of a large directory.
func ColouredLs(size int) []byte {
	colours := []string{"01;34", "01;32", "01;36", "00", "01;31", "40;33;01"}
	r := rand.New(rand.NewSource(2))
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "-rw-r--r-- 1 builder staff %9d Nov 30 12:%02d \x1b[%sm%s-%06d.%s\x1b[0m\r\n",
			r.Intn(1<<24), i%60, colours[r.Intn(len(colours))], "object", i, []string{"o", "c", "go", "d"}[r.Intn(4)])
	}
	return []byte(b.String())
}

// TopRedraw is a full-screen program on the alternate screen redrawing
// every row by cursor addressing, with a highlighted header, as top does.
func TopRedraw(size, cols, rows int) []byte {
	r := rand.New(rand.NewSource(3))
	var b strings.Builder
	b.WriteString("\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J")
	for frame := 0; b.Len() < size; frame++ {
		fmt.Fprintf(&b, "\x1b[H\x1b[7mtop - 12:%02d:%02d up 3 days, load average: %d.%02d\x1b[K\x1b[m", frame/60%60, frame%60, r.Intn(9), r.Intn(100))
		for y := 2; y <= rows; y++ {
			fmt.Fprintf(&b, "\x1b[%d;1H%7d builder   20   0 %8d %6d S %5.1f %4.1f   %d:%02d.%02d \x1b[1mproc-%d\x1b[m\x1b[K",
				y, 1000+y, r.Intn(1<<22), r.Intn(1<<16), r.Float64()*100, r.Float64()*10, r.Intn(60), r.Intn(60), r.Intn(100), y)
		}
	}
	b.WriteString("\x1b[?25h\x1b[?1049l")
	return []byte(b.String())
}

// WideText mixes CJK, emoji (with modifiers and ZWJ sequences), accents
// and ASCII.
func WideText(size int) []byte {
	pieces := []string{"日本語のテキスト", "中文字符", "한국어", "😀", "👍🏽", "👩‍💻", "🇫🇷", "café", "e\u0301", "naïve", "ascii words", "→", "│", "…"}
	r := rand.New(rand.NewSource(4))
	var b strings.Builder
	for b.Len() < size {
		n := 2 + r.Intn(10)
		for i := 0; i < n; i++ {
			b.WriteString(pieces[r.Intn(len(pieces))])
			b.WriteByte(' ')
		}
		b.WriteString("\r\n")
	}
	return []byte(b.String())
}

// RandomStream is fragments of everything a terminal meets, for random streams.
func RandomStream(r *rand.Rand, n, cols, rows int) []byte {
	count := func() int {
		switch r.Intn(4) {
		case 0:
			return r.Intn(3)
		case 1:
			return r.Intn(cols + rows + 2)
		case 2:
			return cols*(rows+2) + r.Intn(3*cols)
		}
		return r.Intn(3000)
	}
	gens := []func() string{
		func() string { return "plain text here " },
		func() string { return fmt.Sprintf("line %d\r\n", r.Intn(1000)) },
		func() string { return "\r\n" },
		func() string { return "\n" },
		func() string { return "\r" },
		func() string { return "\t" },
		func() string { return "\b" },
		func() string { return "\x1b[1;31m" },
		func() string { return "\x1b[0m" },
		func() string { return "\x1b[38;2;10;20;30mrgb\x1b[m" },
		func() string { return "日本😀e\u0301" },
		func() string { return "abc" },
		func() string { return strings.Repeat("x", r.Intn(2*cols)) },
		func() string { return fmt.Sprintf("\x1b[%d%c", count(), "@ABCDEFGILMPSTXZ`abde"[r.Intn(21)]) },
		func() string { return fmt.Sprintf("\x1b[%d;%dH", r.Intn(rows+3), r.Intn(cols+3)) },
		func() string { return fmt.Sprintf("\x1b[%d;%dr", r.Intn(rows+2), r.Intn(rows+2)) },
		func() string { return "\x1b[r" },
		func() string { return fmt.Sprintf("\x1b[%d;%ds", r.Intn(cols+2), r.Intn(cols+2)) },
		func() string { return "\x1b[?69h" },
		func() string { return "\x1b[?69l" },
		func() string { return "\x1b[s" },
		func() string { return "\x1b[?1049h" },
		func() string { return "\x1b[?1049l" },
		func() string { return "\x1b[?47h" },
		func() string { return "\x1b[?6h" },
		func() string { return "\x1b[?6l" },
		func() string { return "\x1b[?7l" },
		func() string { return "\x1b[?7h" },
		func() string { return "\x1b[4h" },
		func() string { return "\x1b[4l" },
		func() string { return "\x1b[20h" },
		func() string { return "\x1b[20l" },
		func() string { return fmt.Sprintf("\x1b[%dJ", r.Intn(4)) },
		func() string { return fmt.Sprintf("\x1b[%dK", r.Intn(3)) },
		func() string { return "\x1bD" },
		func() string { return "\x1bM" },
		func() string { return "\x1bE" },
		func() string { return "\x1b7" },
		func() string { return "\x1b8" },
		func() string { return "\x1bH" },
		func() string { return "\x1b[3g" },
		func() string { return "\x1bc" },
		func() string { return "\x1b(0lqqk\x1b(B" },
		func() string { return "\x0e\x0f" },
		func() string { return "\x1b]0;title " + fmt.Sprint(r.Intn(9)) + "\x07" },
		func() string { return "\x1b]2;other\x1b\\" },
		func() string { return "\x1b[6n" },
		func() string { return "\x1b[c" },
		func() string { return "\x1bP$qr\x1b\\" },
		func() string { return "\x9b" },
		func() string { return "\xc2\x85" },
		func() string { return "\xff\xfe" },
		func() string { return "\xe6\x97" },
		func() string { return "\x1b[" },
		func() string { return "\x18" },
		func() string { return "\x7f" },
	}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(gens[r.Intn(len(gens))]())
		if r.Intn(3) == 0 { // floods of plain lines, so the skip is exercised
			for i, k := 0, r.Intn(6*rows); i < k; i++ {
				fmt.Fprintf(&b, "flood %d \x1b[32mok\x1b[m\r\n", i)
			}
		}
	}
	return []byte(b.String())
}

// Seq is `seq from to` through a PTY.
func Seq(from, to int) []byte {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%d\r\n", i)
	}
	return []byte(b.String())
}
