//go:build bench

package bench

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestOCRSeenFont measures `find` after a full-screen xterm of text never
// seen before, in a font dvvd has already read: each round closes the
// previous xterm and opens a new one (200x62, DejaVu Sans Mono 10 pt, 60
// lines of random syllable words), with the glyph dictionary on and off
// (DVV_OCR_GLYPHS=off), in one run. The first round teaches the dictionary
// and is reported apart.
func TestOCRSeenFont(t *testing.T) {
	testbed.Need(t, "tesseract", "xterm")
	ensureWorker(t)
	x := testbed.StartXvnc(t, testbed.XvncOptions{Width: 1920, Height: 1080})
	x.Run(t, "xsetroot", "-solid", "#2e4a62")
	const rounds = 7
	rng := rand.New(rand.NewPCG(1, 2))
	const consonants, vowels = "bdfhmnprstz", "aeu"
	dir := t.TempDir()
	var files, targets []string
	for i := 0; i < rounds; i++ {
		var sb strings.Builder
		var last string
		for n := 0; n < 60; n++ {
			for k := 0; k < 18; k++ {
				var w strings.Builder
				for range 1 + rng.IntN(4) {
					w.WriteByte(consonants[rng.IntN(len(consonants))])
					w.WriteByte(vowels[rng.IntN(len(vowels))])
				}
				last = w.String()
				sb.WriteString(last + " ")
			}
			sb.WriteString("\n")
		}
		f := filepath.Join(dir, fmt.Sprintf("words%d", i))
		if err := os.WriteFile(f, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		files, targets = append(files, f), append(targets, last)
	}
	rows := []string{"| dictionary | first screen p50 (teaches) | CPU | next screens p50 | p90 | CPU/read |", "| --- | --- | --- | --- | --- | --- |"}
	to, quiet := 60000, 300
	for _, mode := range []struct {
		name string
		env  []string
	}{{"on", nil}, {"off (`DVV_OCR_GLYPHS=off`)", []string{"DVV_OCR_GLYPHS=off"}}} {
		d := startDvvdEnv(t, mode.env...)
		c, c2 := d.dial(t), d.dial(t)
		id := openVNC(t, c, x.Port)
		ops := watchOps(t, d, id)
		tgt := wire.Target{LimbID: id}
		must(t, c, wire.FindArgs{Target: tgt, Text: strp("zzz")})
		var first, next durations
		var firstCPU, nextCPU int
		var prev *testbed.Proc
		for i, f := range files {
			var p *testbed.Proc
			changed(t, ops, c2, tgt, func() {
				if prev != nil {
					prev.Kill()
				}
				p = x.Background(t, "xterm", "-class", "NewText", "-geometry", "200x62+0+0", "-fa", "DejaVu Sans Mono", "-fs", "10", "-e", "sh", "-c", "cat "+f+"; exec sleep 100000")
			})
			x.WaitStill(t, "NewText")
			must(t, c, wire.WaitArgs{Target: tgt, Until: "screen-stable", QuietMs: &quiet, TimeoutMs: &to})
			c0, t0 := d.cpuAll(), time.Now()
			r := must(t, c, wire.FindArgs{Target: tgt, Text: strp(targets[i])})
			wall, cpu := time.Since(t0), d.cpuAll()-c0
			t.Logf("dictionary %s, round %d: %v, %d ms of CPU", mode.name, i, wall.Round(time.Millisecond), cpu*10)
			if len(r.Find.Matches) == 0 {
				t.Fatalf("round %d: %q not found", i, targets[i])
			}
			if i == 0 {
				first, firstCPU = append(first, wall), cpu
			} else {
				next, nextCPU = append(next, wall), nextCPU+cpu
			}
			prev = p
		}
		prev.Kill()
		rows = append(rows, fmt.Sprintf("| %s | %s | %d ms | %s | %s | %.0f ms |", mode.name, ms(first.pct(0.5)), firstCPU*10, ms(next.pct(0.5)), ms(next.pct(0.9)), float64(nextCPU)*10/float64(len(next))))
		d.proc.Kill()
	}
	report(t, "find after a full-screen xterm of new words in a font read before (1920x1080 Xvnc, same run)", rows...)
}
