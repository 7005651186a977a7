package daemon

import (
	"encoding/json"

	"github.com/dvvhq/dvv/pkg/wire"
)

// goneDone is the success of a goneIsDone op on a limb already gone: the
// op's own answer fields, limbId and dispatched, say so.
type goneDone struct {
	op         string
	LimbID     string `json:"limbId,omitempty"`
	Dispatched string `json:"dispatched,omitempty"`
}

func (g *goneDone) Op() string { return g.op }

// reply is what one request is answered with: its op's typed answer on
// success (or one dispatch states itself, goneDone), written as the line
// straight from that struct, or a failure.
type reply struct {
	ans  wire.Answer
	resp *wire.Reply
}

// failed is the reply for err, coded (errorResponse).
func failed(err error) reply { return reply{resp: errorResponse(nil, err)} }

// line is the reply as the line a group_run member carries: no id.
func (r reply) line() json.RawMessage {
	if r.resp != nil {
		b, err := json.Marshal(r.resp)
		if err == nil {
			return b
		}
	} else if b, err := wire.AnswerLine(nil, r.ans); err == nil {
		return b
	}
	b, _ := json.Marshal(&wire.Reply{Result: wire.ResultError, Code: wire.Internal, Message: "answer could not be encoded"})
	return b
}

// reply writes a request's reply with its id.
func (c *conn) reply(id json.RawMessage, r reply) {
	if r.resp != nil {
		r.resp.ID = id
		c.send(r.resp)
		return
	}
	line, err := wire.AnswerLine(id, r.ans)
	if err != nil {
		c.send(&wire.Reply{Result: wire.ResultError, ID: id, Code: wire.Internal, Message: "answer could not be encoded"})
		return
	}
	c.writeLine(line)
}

// round3 rounds a share, a score or a confidence to three decimals, as
// answers carry them.
func round3(f float64) float64 { return float64(int(f*1000+0.5)) / 1000 }
