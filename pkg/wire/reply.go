package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// Reply is an answer line as a reader that does not know its op reads it:
// the envelope every line has (result, id), a failure's fields, and the
// line itself, which the op's typed answer is decoded from (DecodeAnswer).
// A client that knows the op it sent reads that op's Answer; the CLI's
// --json, the bridge and group_run members read the rest here.
type Reply struct {
	Result string          `json:"result"`
	ID     json.RawMessage `json:"id,omitempty"`

	// a failure's fields (Err)
	Code    Code   `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	Next    string `json:"next,omitempty"`
	// Cause is the code that lay under Code when dvvd mapped a failure onto
	// one the op declares (a wait on a limb whose password was refused
	// answers NOT_CONNECTED, cause AUTH_FAILED).
	Cause       Code         `json:"cause,omitempty"`
	Observation *Observation `json:"observation,omitempty"`
	// Fingerprint is the key or certificate the server presents, on
	// HOSTKEY_UNKNOWN and HOSTKEY_CHANGED.
	Fingerprint string `json:"fingerprint,omitempty"`

	// Line is the line as it was read.
	Line json.RawMessage `json:"-"`
}

// head is what a reader decodes of every line: the observation of a
// success is its op's to read, so only a failure's is decoded here.
type head struct {
	Result string          `json:"result"`
	ID     json.RawMessage `json:"id,omitempty"`
}

// ReadReply reads one answer line's envelope, keeping the line.
func ReadReply(line []byte) (*Reply, error) {
	var h head
	if err := json.Unmarshal(line, &h); err != nil {
		return nil, err
	}
	r := &Reply{Result: h.Result, ID: h.ID, Line: line}
	if h.Result == ResultError {
		if err := json.Unmarshal(line, r); err != nil {
			return nil, err
		}
		r.Line = line
	}
	return r, nil
}

// Err returns the line's error, or nil for a success.
func (r *Reply) Err() *Error {
	if r.Result != ResultError {
		return nil
	}
	return &Error{Code: r.Code, Message: r.Message, Next: r.Next, Cause: r.Cause, Observation: r.Observation, Fingerprint: r.Fingerprint}
}

// ErrorReply is a failure as the line dvvd writes for it.
func ErrorReply(id json.RawMessage, e *Error) *Reply {
	return &Reply{Result: ResultError, ID: id, Code: e.Code, Message: e.Message, Next: e.Next, Cause: e.Cause, Observation: e.Observation, Fingerprint: e.Fingerprint}
}

// DecodeAnswer reads op R's answer from its line: the fields R declares,
// and nothing a newer dvvd added.
func DecodeAnswer[R any](r *Reply) (*R, error) {
	a := new(R)
	if err := json.Unmarshal(r.Line, a); err != nil {
		return nil, err
	}
	return a, nil
}

// AnswerOf reads the line as the answer of the op it names in result (a
// group_run member's op varies): nil for a failure.
func AnswerOf(r *Reply) (Answer, error) {
	if r.Err() != nil {
		return nil, nil
	}
	s, ok := Spec(r.Result)
	if !ok || s.AnswerType == nil {
		return nil, fmt.Errorf("wire: %q answers no op this client knows", r.Result)
	}
	a := reflect.New(s.AnswerType)
	if err := json.Unmarshal(r.Line, a.Interface()); err != nil {
		return nil, err
	}
	return a.Interface().(Answer), nil
}

// AnswerLine is an op's answer as its line: result (the op), the id, then
// the answer's own fields, in the order and encoding encoding/json gives
// them (dvvd writes every success so; the CLI's --json prints it).
func AnswerLine(id json.RawMessage, a Answer) ([]byte, error) {
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
			enc, err := json.Marshal(id) // HTML-safe, as encoding/json writes any value
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
