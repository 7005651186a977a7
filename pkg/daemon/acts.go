package daemon

import (
	"sync"
	"time"

	"github.com/dvvhq/dvv/pkg/wire"
)

// actLogSize is how many recent agent acts a limb keeps for the viewer.
const actLogSize = 64

// Act is one input op for the viewer's overlay: where a pointer act
// pointed, which keys, how long a text was (never the text: it may be a
// password), and its outcome code ("ok", or the refusal such as
// GEOMETRY_CHANGED).
type Act struct {
	Seq     uint64 `json:"seq"`
	TimeMs  int64  `json:"timeMs"`
	Op      string `json:"op"`
	Action  string `json:"action,omitempty"`
	By      string `json:"by"`
	X       *int   `json:"x,omitempty"`
	Y       *int   `json:"y,omitempty"`
	ToX     *int   `json:"toX,omitempty"`
	ToY     *int   `json:"toY,omitempty"`
	Keys    string `json:"keys,omitempty"`
	TextLen int    `json:"textLen,omitempty"`
	Outcome string `json:"outcome"`
}

type actLog struct {
	mu   sync.Mutex
	ring [actLogSize]Act
	n    uint64
}

func (g *actLog) add(req *request, by, outcome string, at time.Time) {
	in := req.gist()
	a := Act{TimeMs: at.UnixMilli(), Op: req.OpName, Action: in.Action, By: by, Keys: in.Keys, Outcome: outcome,
		X: in.X, Y: in.Y, ToX: in.ToX, ToY: in.ToY}
	if in.Text != nil {
		a.TextLen = len([]rune(*in.Text))
	}
	if in.BytesHex != "" {
		a.TextLen = len(in.BytesHex) / 2
	}
	if req.OpName == wire.OpClick && a.Action == "" {
		a.Action = "click"
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n++
	a.Seq = g.n
	g.ring[(g.n-1)%actLogSize] = a
}

// since returns the acts after seq, oldest first.
func (g *actLog) since(seq uint64) []Act {
	g.mu.Lock()
	defer g.mu.Unlock()
	if seq >= g.n {
		return nil
	}
	first := max(seq, g.n-min(g.n, actLogSize))
	out := make([]Act, 0, g.n-first)
	for i := first; i < g.n; i++ {
		out = append(out, g.ring[i%actLogSize])
	}
	return out
}
