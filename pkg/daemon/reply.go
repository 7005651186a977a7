package daemon

import (
	"bytes"
	"encoding/json"

	"github.com/dvvhq/dvv/pkg/wire"
)

// reply is what one request is answered with: its op's typed answer on
// success, written as the line straight from that struct, or a Response
// (a failure, or a success dispatch states itself: close of a gone limb).
type reply struct {
	ans  wire.Answer
	resp *wire.Response
}

// failed is the reply for err, coded (errorResponse).
func failed(err error) reply { return reply{resp: errorResponse(nil, err)} }

// response is the reply as a Response, which a group_run member carries.
func (r reply) response() *wire.Response {
	if r.resp != nil {
		return r.resp
	}
	return wire.ResponseOf(r.ans)
}

// answerLine is an op's answer as its line: result (the op), the
// request's id, then the answer's own fields, in the order and with the
// encoding a Response with those fields has (TestAnswerLinesAreResponseLines).
func answerLine(id json.RawMessage, a wire.Answer) ([]byte, error) {
	body, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	line := make([]byte, 0, len(body)+len(id)+len(a.Op())+24)
	line = append(line, `{"result":"`...)
	line = append(line, a.Op()...)
	line = append(line, '"')
	if len(id) > 0 {
		line = append(line, `,"id":`...)
		if bytes.ContainsAny(id, "<>&\u2028\u2029") {
			enc, err := json.Marshal(id) // as a Response writes it: HTML-safe
			if err != nil {
				return nil, err
			}
			line = append(line, enc...)
		} else {
			line = append(line, id...) // a scalar read off the line: already compact
		}
	}
	if len(body) > 2 {
		return append(append(line, ','), body[1:]...), nil
	}
	return append(line, '}'), nil
}

// reply writes a request's reply with its id.
func (c *conn) reply(id json.RawMessage, r reply) {
	if r.resp != nil {
		r.resp.ID = id
		c.send(r.resp)
		return
	}
	line, err := answerLine(id, r.ans)
	if err != nil {
		c.send(&wire.Response{Result: wire.ResultError, ID: id, Code: wire.Internal, Message: "answer could not be encoded"})
		return
	}
	c.writeLine(line)
}
