package daemon

import (
	"testing"
	"time"

	"github.com/dvvhq/dvv/pkg/wire"
)

func TestActLogKeepsLengthsNotText(t *testing.T) {
	var g actLog
	text := "correct horse battery"
	x, y := 3, 4
	g.add(asRequest(t, wire.TypeArgs{Text: &text}), "agent", "ok", time.Now())
	g.add(asRequest(t, wire.ClickArgs{X: &x, Y: &y}), "agent", "GEOMETRY_CHANGED", time.Now())
	g.add(asRequest(t, wire.TermSendArgs{BytesHex: "0d0a"}), "agent", "ok", time.Now())
	all := g.since(0)
	if len(all) != 3 || all[0].TextLen != len(text) || all[1].Action != "click" || *all[1].X != 3 || all[2].TextLen != 2 {
		t.Fatalf("acts %+v", all)
	}
	if len(g.since(2)) != 1 || len(g.since(3)) != 0 || len(g.since(^uint64(0))) != 0 {
		t.Fatal("since does not count from the sequence asked")
	}
	for i := 0; i < 3*actLogSize; i++ {
		g.add(asRequest(t, wire.KeyArgs{Keys: "ctrl+c"}), "agent", "ok", time.Now())
	}
	if got := g.since(0); len(got) != actLogSize || got[len(got)-1].Seq != g.n {
		t.Fatalf("after wrapping: %d acts, last seq %d of %d", len(got), got[len(got)-1].Seq, g.n)
	}
}
