package e2e

import (
	"fmt"
	"image"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestFindOnNewText: a 1920x1080 Xvnc desktop full of words never seen
// before (three xterms of random words) and one more xterm holding a
// target word. find answers the target once, inside the window the X
// server placed it in, and answers nothing for a word drawn nowhere; the
// whole text read afterwards still holds the target once.
func TestFindOnNewText(t *testing.T) {
	testbed.Need(t, "tesseract", "xterm", "xdotool")
	x := testbed.StartXvnc(t, testbed.XvncOptions{Width: 1920, Height: 1080})
	x.Run(t, "xsetroot", "-solid", "#2e4a62")
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed>>1))
	// Letters Tesseract never confuses with each other or with digits in
	// a monospaced font (no i, l, o, j), so the check is of where and
	// whether, not of glyph shapes.
	const letters = "abcdefghkmnpqrstuvwxyz"
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = letters[rng.IntN(len(letters))]
		}
		return string(b)
	}
	target, absent := word(9), word(9)
	dir := t.TempDir()
	for i, geo := range []string{"100x30+0+0", "100x30+960+0", "200x28+0+560"} {
		var sb strings.Builder
		for n := 0; n < 28; n++ {
			for k := 0; k < 9; k++ {
				w := word(3 + rng.IntN(6))
				if strings.Contains(w, target[:3]) || strings.Contains(w, absent[:3]) {
					w = "x"
				}
				sb.WriteString(w + " ")
			}
			sb.WriteString("\n")
		}
		f := filepath.Join(dir, fmt.Sprintf("words%d", i))
		if err := os.WriteFile(f, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		x.Background(t, "xterm", "-geometry", geo, "-fa", "DejaVu Sans Mono", "-fs", "11", "-e", "sh", "-c", "cat "+f+"; exec sleep 100000")
	}
	x.Background(t, "xterm", "-title", "dvvtarget", "-geometry", "30x1+1400+960", "-fa", "DejaVu Sans Mono", "-fs", "11", "-e", "sh", "-c", "printf '   "+target+"'; exec sleep 100000")
	x.WaitStill(t, "xterm")
	win := xwindow(t, x.Display, "dvvtarget")

	c := dial(t, startDaemon(t), "find-new-text")
	id := openVNC(t, c, "127.0.0.1", x.Port)
	tgt := wire.Target{LimbID: id}
	f := must(t, c, wire.FindArgs{Target: tgt, Text: strp(target)}).Find
	if len(f.Matches) != 1 {
		t.Fatalf("find %q: %d matches %+v", target, len(f.Matches), f.Matches)
	}
	m := f.Matches[0]
	if box := image.Rect(m.Box.X, m.Box.Y, m.Box.X+m.Box.W, m.Box.Y+m.Box.H); !box.In(win) {
		t.Fatalf("%q read at %v; the X server placed its window at %v", target, box, win)
	}
	if f := must(t, c, wire.FindArgs{Target: tgt, Text: strp(absent)}).Find; len(f.Matches) != 0 {
		t.Fatalf("%q is drawn nowhere but was found: %+v", absent, f.Matches)
	}
	all := must(t, c, wire.FindArgs{Target: tgt}).Find
	n, words := 0, 0
	for _, l := range all.Lines {
		n += strings.Count(strings.ToLower(l.Text), target)
		words += len(strings.Fields(l.Text))
	}
	if n != 1 || words < 500 {
		t.Fatalf("the whole text: %q %d times, %d words read", target, n, words)
	}
}
