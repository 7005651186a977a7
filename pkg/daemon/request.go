package daemon

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/dvvhq/dvv/pkg/wire"
)

// request is one request as dvvd holds it: the envelope, and the op's Args
// decoded from the same line (a pointer: *wire.ClickArgs, …, which embeds
// the envelope too). args is nil for an op the table lacks, which serve
// refuses.
type request struct {
	wire.Envelope
	args wire.Enveloped
}

// decodeRequest decodes a line straight into its op's Args, strictly: a
// field the op does not take, a wrong type, a field given twice or a
// second object is BAD_REQUEST naming it. The op is read off the line
// first (lineOp); a line it cannot read that way, or of an op the table
// lacks, has its envelope decoded alone. The request comes back beside an
// error once its envelope was read, so the refusal can answer its id.
func decodeRequest(ops *wire.Table, line []byte) (*request, error) {
	var args wire.Enveloped
	var refused *wire.Error
	if op, ok := lineOp(line); ok {
		if spec, known := ops.Spec(string(op)); known {
			args, refused = spec.DecodeLine(line)
			if args != nil && args.Head().OpName != spec.Name {
				args = nil // the line says otherwise (a duplicate op): decode the envelope alone
			}
		}
	}
	var env wire.Envelope
	if args != nil {
		env = *args.Head()
	} else if err := decodeEnvelope(line, &env); err != nil {
		if refused != nil {
			return nil, refused
		}
		return nil, err
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
	if refused != nil {
		return req, refused
	}
	if args != nil {
		args.Head().ID = env.ID
	}
	req.args = args
	return req, nil
}

// decodeEnvelope reads only a line's envelope, refusing malformed JSON
// and an envelope field of the wrong type.
func decodeEnvelope(line []byte, env *wire.Envelope) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(env); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return wire.Errorf(wire.BadRequest, "field %q must be %s, not a JSON %s", te.Field, te.Type, te.Value)
		}
		return wire.Errorf(wire.BadRequest, "malformed request: %v", err)
	}
	if dec.More() {
		return wire.Errorf(wire.BadRequest, "one JSON object per line; found more after it")
	}
	return nil
}

// gist is what every op shares (history, acts, verification, address
// checks), read from the request's Args; the handler reads its typed Args
// instead.
func (r *request) gist() wire.Gist { return wire.GistOf(r.args) }

// target is the request's selector trio.
func (r *request) target() wire.Target { return wire.SelectionOf(r.args) }

// errorResponse turns any error into a coded answer. Uncoded errors are
// INTERNAL and keep only their text (which never holds a secret: secrets
// are never formatted into errors anywhere in dvvd).
func errorResponse(id json.RawMessage, err error) *wire.Reply {
	var we *wire.Error
	if !errors.As(err, &we) {
		we = wire.Errorf(wire.Internal, "%v", err)
	}
	next := we.Next
	if next == "" {
		next = we.Code.Info().Next
	}
	return &wire.Reply{Result: wire.ResultError, ID: id, Code: we.Code, Message: we.Message, Next: next, Cause: we.Cause,
		Observation: we.Observation, Fingerprint: we.Fingerprint}
}
