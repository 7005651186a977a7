package wire

// OpClipboard is op clipboard's name on the wire.
const OpClipboard = "clipboard"

// clipboardOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_clipboard_gen.go).
func clipboardOp() OpSpec {
	return OpSpec{Name: OpClipboard, ListedOn: desktops, Answers: answers("clipboard", "dispatched", "verification"), Limb: true, Recorded: true, Kind: KindDesktop, KindNote: "a terminal has no clipboard: use run or files", Variant: "action", Variants: []string{"get", "set"},
		ActionCaps: map[string][]string{"get": {"clipboard.read"}, "set": {"clipboard.write"}},
		Fields:     limbFields(fld("action", required()), fld("text", only("set"), required(), note("≤ 1 MiB"))),
		Raises:     codes(NotImplemented, LeaseNotHeld, LeaseRevoked, WrongProtocol, NotReady, NotConnected),
		Answer:     "`clipboard`: text, present, via (extended-utf8, latin1 or cliprdr-unicode), unrepresentable: the characters the route could not carry, left out of what was sent (Latin-1 cut text; on RDP, characters outside the BMP such as emoji, which xrdp cannot take)"}
}
