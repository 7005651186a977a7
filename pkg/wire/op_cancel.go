package wire

import "encoding/json"

// OpCancel is op cancel's name on the wire.
const OpCancel = "cancel"

// CancelArgs are the arguments of op cancel.
type CancelArgs struct {
	Envelope
	Cancels json.RawMessage `json:"cancels,omitempty" dvv:"required" need:"the id of a request sent on this connection"`
}

// CancelAnswer is what a success of op cancel carries.
type CancelAnswer struct {
	Dispatched string `json:"dispatched,omitempty"`
}

// cancelOp is what a client needs to know of op cancel beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from CancelArgs and
// CancelAnswer (op_cancel_gen.go).
func cancelOp() OpSpec {
	return OpSpec{
		Name:     OpCancel,
		NoAttach: true,
		Inline:   true,
		Answer:   "`dispatched`: whether a request with that id was in flight; its work stops and it is answered as the work ends",
	}
}
