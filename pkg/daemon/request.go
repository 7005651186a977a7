package daemon

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/dvvhq/dvv/pkg/wire"
)

// request is one request as dvvd holds it: the envelope, and the op's Args
// decoded from the same line (a pointer: *wire.ClickArgs, …). args is nil
// for an op the table lacks, which serve refuses.
type request struct {
	wire.Envelope
	args any
}

// decodeRequest reads a line's envelope, then the same line straight into
// its op's Args, strictly: a field the op does not take, a wrong type, a
// field given twice or a second object is BAD_REQUEST naming it. The
// request comes back beside an error once its envelope was read, so the
// refusal can answer its id.
func decodeRequest(ops *wire.Table, line []byte) (*request, error) {
	var env wire.Envelope
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&env); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, wire.Errorf(wire.BadRequest, "field %q must be %s, not a JSON %s", te.Field, te.Type, te.Value)
		}
		return nil, wire.Errorf(wire.BadRequest, "malformed request: %v", err)
	}
	if dec.More() {
		return nil, wire.Errorf(wire.BadRequest, "one JSON object per line; found more after it")
	}
	if k, dup := duplicateKey(line); dup {
		return nil, wire.Errorf(wire.BadRequest, "field %q is given twice; give each field once", k)
	}
	if string(bytes.TrimSpace(env.ID)) == "null" {
		env.ID = nil // null is no id
	}
	if !scalarID(env.ID) {
		return nil, wire.Errorf(wire.BadRequest, `"id" must be a string or a number, not %s`, jsonKind(env.ID))
	}
	if env.OpName == "" {
		return nil, wire.Errorf(wire.BadRequest, `request has no "op"`)
	}
	req := &request{Envelope: env}
	spec, ok := ops.Spec(env.OpName)
	if !ok {
		return req, nil // serve answers "unknown op" with the id
	}
	args, werr := spec.DecodeLine(line)
	if werr != nil {
		return req, werr
	}
	req.args = args
	return req, nil
}

// str, intp and text read a field of the request's Args by its JSON name,
// for what every op shares (history, acts, verification, policy): the
// handler reads its typed Args instead.
func (r *request) str(name string) string   { return wire.StringOf(r.args, name) }
func (r *request) intp(name string) *int    { return wire.IntOf(r.args, name) }
func (r *request) text(name string) *string { return wire.TextOf(r.args, name) }

// target is the request's selector trio.
func (r *request) target() wire.Target {
	return wire.Target{LimbID: r.str("limbId"), GroupID: r.str("groupId"), Member: r.intp("member")}
}
