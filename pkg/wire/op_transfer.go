package wire

// OpTransfer is op transfer's name on the wire.
const OpTransfer = "transfer"

// transferOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_transfer_gen.go).
func transferOp() OpSpec {
	return OpSpec{Name: OpTransfer, Answers: answers("transfer"), Limb: true, Variant: "action", Variants: []string{"status", "cancel"},
		ActionCaps: map[string][]string{"status": {"files.read"}, "cancel": {"files.read"}}, // cancel stops work: not read-only
		Fields:     limbFields(fld("action", required()), fld("transferId", requiredIn("cancel"), required("transfer status lists them"))), Raises: codes(NotFound),
		Answer: "`transfer`: `inFlight` and `transfers` [{`transferId`, `action` get/put, `path`, `bytes` so far, `total` when known, `elapsedMs`, `bytesPerSec`}] for status; cancel (`transferId`) stops that files call, which answers `TIMEOUT` and leaves the destination as it was; `NOT_FOUND` when it is no longer in flight. Nothing is queued: a transfer lives as long as its files call"}
}
