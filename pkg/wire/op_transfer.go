package wire

// OpTransfer is op transfer's name on the wire.
const OpTransfer = "transfer"

// TransferArgs are the arguments of op transfer.
type TransferArgs struct {
	Envelope
	Target
	// status or cancel.
	Action string `json:"action,omitempty" dvv:"variant,required,enum=status|cancel"`
	// cancel: the transfer to stop, as status listed it.
	TransferID string `json:"transferId,omitempty" dvv:"required=cancel" need:"transfer status lists them"`
}

// TransferAnswer is what a success of op transfer carries.
type TransferAnswer struct {
	LimbID   string    `json:"limbId,omitempty"`
	Transfer *Transfer `json:"transfer,omitempty"`
}

// transferOp is what a client needs to know of op transfer beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from TransferArgs and
// TransferAnswer (op_transfer_gen.go).
func transferOp() OpSpec {
	return OpSpec{
		Name:       OpTransfer,
		Limb:       true,
		ActionCaps: map[string][]string{"status": {"files.read"}, "cancel": {"files.read"}},
		Raises:     codes(NotFound),
		Answer:     "`transfer`: `inFlight` and `transfers` [{`transferId`, `action` get/put, `path`, `bytes` so far, `total` when known, `elapsedMs`, `bytesPerSec`}] for status; cancel (`transferId`) stops that files call, which answers `TIMEOUT` and leaves the destination as it was; `NOT_FOUND` when it is no longer in flight. Nothing is queued: a transfer lives as long as its files call",
	}
}
