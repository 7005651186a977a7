package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/dvvhq/dvv/pkg/human"
	"github.com/dvvhq/dvv/pkg/wire"
)

// progressBar is one line on a terminal's stderr, redrawn in place as dvvd
// reports a transfer's bytes, and erased at the end so the scrollback keeps
// only the command's own answer. It draws nothing when w is not a terminal.
type progressBar struct {
	w     io.Writer
	label string
	on    bool

	mu    sync.Mutex
	drawn bool
	done  bool
}

func newProgressBar(w io.Writer, label string) *progressBar {
	return &progressBar{w: w, label: label, on: isTerminal(w)}
}

// update draws p (called from the transfer's progress lines).
func (b *progressBar) update(p wire.TransferInfo) {
	if !b.on {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return
	}
	fmt.Fprint(b.w, "\r"+progressLine(b.label, p, termWidth(b.w))+"\033[K")
	b.drawn = true
}

// clear erases the line, whatever way the transfer ended (an answer, an
// error, Ctrl+C); no update draws after it.
func (b *progressBar) clear() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.drawn && !b.done {
		fmt.Fprint(b.w, "\r\033[K")
	}
	b.done = true
}

// progressLine is what the bar shows of p in width columns: the label, a
// bar, percentage and ETA when the total is known, the bytes so far and
// the rate. It stays under width (writing the last column wraps on some
// terminals), shortening the label, then dropping the bar.
func progressLine(label string, p wire.TransferInfo, width int) string {
	amount := human.Bytes(p.Bytes)
	if p.Total > 0 {
		amount += " / " + human.Bytes(p.Total)
	}
	stats := amount + "  " + human.Bytes(p.BytesPerSec) + "/s"
	if p.Total > 0 && p.BytesPerSec > 0 && p.Bytes < p.Total {
		eta := time.Duration(float64(p.Total-p.Bytes) / float64(p.BytesPerSec) * float64(time.Second))
		stats += "  ETA " + eta.Round(time.Second).String()
	}
	if p.Total > 0 {
		frac := min(float64(p.Bytes)/float64(p.Total), 1)
		pct := fmt.Sprintf("%3d%%", int(frac*100))
		// label + " [" + bar + "] " + pct + "  " + stats
		barWidth := min(width-1-columns(label)-len(" [] ")-len(pct)-2-len(stats), 30)
		if barWidth >= 10 {
			fill := int(frac * float64(barWidth))
			bar := strings.Repeat("=", fill) + strings.Repeat(" ", barWidth-fill)
			return label + " [" + bar + "] " + pct + "  " + stats
		}
		stats = pct + "  " + stats
	}
	room := width - 1 - len(stats) - 2
	if room < 4 {
		return stats
	}
	if r := []rune(label); len(r) > room {
		label = "…" + string(r[len(r)-room+1:])
	}
	return label + "  " + stats
}

// columns counts a label's runes: one column each, near enough for names.
func columns(s string) int { return utf8.RuneCountInString(s) }
