// Package wiretest reads any answer line whole, for tests: a test that
// sends many ops and reads whichever fields their answers carry decodes
// each line into Response, the flat union of every answer field. The
// product never does; it reads each op's own Answer (wire.DecodeAnswer).
// Response is generated from the ops' Answer types (internal/gen/args).
package wiretest

import "github.com/dvvhq/dvv/pkg/wire"

// Err returns the line's error, or nil for a success.
func (r *Response) Err() *wire.Error {
	if r.Result != wire.ResultError {
		return nil
	}
	return &wire.Error{Code: r.Code, Message: r.Message, Next: r.Next, Cause: r.Cause, Observation: r.Observation}
}
