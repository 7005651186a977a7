package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dvvhq/dvv/pkg/wire"
)

// table prints aligned columns: a header row, then rows.
type table struct {
	tw *tabwriter.Writer
}

func newTable(w io.Writer, header ...string) *table {
	t := &table{tw: tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)}
	t.row(header...)
	return t
}

// row prints one row; each cell is escaped to one line (a remote file
// name or a window title with a tab or newline would break the columns).
func (t *table) row(cols ...string) {
	cells := make([]string, len(cols))
	for i, c := range cols {
		cells[i] = oneLine(c)
	}
	fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
}

func (t *table) flush() { t.tw.Flush() }

// leaseText is a lease in a few words.
func leaseText(l wire.Lease) string {
	switch {
	case l.Held && l.HumanTookOver:
		return "held by you (as a person)"
	case l.Held:
		return "held by you"
	case l.Holder != "" && l.HumanTookOver:
		return "a person (" + l.Holder + ") took over"
	case l.Holder != "":
		return "held by " + l.Holder
	}
	return "free"
}

func sizeText(w, h int) string {
	if w == 0 && h == 0 {
		return "-"
	}
	return fmt.Sprintf("%dx%d", w, h)
}

func endpoint(address string, port int) string {
	if port == 0 || strings.Contains(address, "://") {
		return address
	}
	if strings.Contains(address, ":") {
		return fmt.Sprintf("[%s]:%d", address, port)
	}
	return fmt.Sprintf("%s:%d", address, port)
}

// printObservation prints the key facts of a limb: state, size, generation,
// coverage, lease and typing fence.
func printObservation(w io.Writer, o *wire.Observation) {
	kv := newTable(w, "limb:", o.LimbID)
	kv.row("protocol:", fmt.Sprintf("%s %s slot %d (%s)", o.Protocol, endpoint(o.Address, o.Port), o.Slot, o.Kind))
	kv.row("state:", o.State)
	if o.Kind == "terminal" {
		kv.row("size:", fmt.Sprintf("%dx%d cells", o.Size.W, o.Size.H))
	} else {
		kv.row("size:", sizeText(o.Size.W, o.Size.H))
		kv.row("generation:", fmt.Sprint(o.Geometry.Generation))
		kv.row("coverage:", fmt.Sprintf("%.1f%%", o.Coverage*100))
		kv.row("perceive:", fmt.Sprint(o.Perceive))
	}
	lease := leaseText(o.Lease)
	if o.Lease.Reason != "" {
		lease += " — " + o.Lease.Reason
	}
	kv.row("lease:", lease)
	if o.Lease.HumanTookOver {
		kv.row("human_took_over:", "true")
	}
	if f := o.Fence; f != nil {
		fence := "open"
		if f.Armed {
			fence = "armed: " + f.Reason
		}
		kv.row("fence:", fmt.Sprintf("%s (damage %.0f%%, threshold %.0f%%)", fence, f.Damage*100, f.Threshold*100))
	}
	if o.DesktopName != "" {
		kv.row("desktop:", o.DesktopName)
	}
	if o.Reconnects > 0 {
		kv.row("reconnects:", fmt.Sprint(o.Reconnects))
	}
	if g := o.Guest; g != nil {
		if g.OS != "" {
			kv.row("machine:", fmt.Sprintf("%s %s, kernel %s, host %s, user %s (via %s)", g.OS, g.Arch, g.Kernel, g.Hostname, g.User, g.Via))
		} else {
			kv.row("machine:", fmt.Sprintf("unknown (via %s): %s", g.Via, g.Note))
		}
	}
	if o.LastError != nil {
		kv.row("last error:", fmt.Sprintf("%s: %s", o.LastError.Code, o.LastError.Message))
	}
	if o.LastChangeMs > 0 {
		kv.row("last change:", (time.Duration(o.LastChangeMs)*time.Millisecond).String()+" ago")
	}
	kv.flush()
}

// printSignals prints every signal with its state and reason.
func printSignals(w io.Writer, s wire.Signals) {
	names := make([]string, 0, len(s))
	for n := range s {
		names = append(names, n)
	}
	sort.Strings(names)
	t := newTable(w, "SIGNAL", "STATE", "DETAIL")
	for _, n := range names {
		sig := s[n]
		detail := sig.Reason
		if len(sig.Value) > 0 {
			keys := make([]string, 0, len(sig.Value))
			for k := range sig.Value {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var parts []string
			for _, k := range keys {
				parts = append(parts, fmt.Sprintf("%s=%v", k, sig.Value[k]))
			}
			if detail != "" {
				detail += "; "
			}
			detail += strings.Join(parts, " ")
		}
		t.row(n, sig.State, detail)
	}
	t.flush()
}

func msTime(ms int64) string {
	if ms == 0 {
		return "-"
	}
	return time.UnixMilli(ms).Format("2006-01-02 15:04:05")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
