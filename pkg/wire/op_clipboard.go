package wire

// OpClipboard is op clipboard's name on the wire.
const OpClipboard = "clipboard"

// ClipboardArgs are the arguments of op clipboard.
type ClipboardArgs struct {
	Envelope
	Target
	// get reads the remote clipboard; set writes text to it.
	Action string `json:"action,omitempty" dvv:"variant,required,enum=get|set"`
	// set only: the text to put on the clipboard.
	// note: ≤ 1 MiB
	Text *string `json:"text,omitempty" dvv:"required,only=set"`
}

// ClipboardAnswer is what a success of op clipboard carries.
type ClipboardAnswer struct {
	LimbID       string        `json:"limbId,omitempty"`
	Dispatched   string        `json:"dispatched,omitempty"`
	Verification *Verification `json:"verification,omitempty"`
	Clip         *Clipboard    `json:"clipboard,omitempty"`
}

// clipboardOp is what a client needs to know of op clipboard beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from ClipboardArgs and
// ClipboardAnswer (op_clipboard_gen.go).
func clipboardOp() OpSpec {
	return OpSpec{
		Name:       OpClipboard,
		Limb:       true,
		Kind:       KindDesktop,
		KindNote:   "a terminal has no clipboard: use run or files",
		ActionCaps: map[string][]string{"get": {"clipboard.read"}, "set": {"clipboard.write"}},
		Raises:     codes(NotImplemented, LeaseNotHeld, LeaseRevoked, WrongProtocol, NotReady, NotConnected),
		Answer:     "`clipboard`: text, present, via (extended-utf8, latin1 or cliprdr-unicode), unrepresentable: the characters the route could not carry, left out of what was sent (Latin-1 cut text; on RDP, characters outside the BMP such as emoji, which xrdp cannot take)",
	}
}
