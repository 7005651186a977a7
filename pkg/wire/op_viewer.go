package wire

// OpViewer is op viewer's name on the wire.
const OpViewer = "viewer"

// ViewerArgs are the arguments of op viewer.
type ViewerArgs struct {
	Envelope
	// note: the page to open
	LimbID string `json:"limbId,omitempty"`
	// note: open when absent; watch gives a read-only link
	Action string `json:"action,omitempty" dvv:"variant,enum=open|watch"`
}

// ViewerAnswer is what a success of op viewer carries.
type ViewerAnswer struct {
	Dispatched string      `json:"dispatched,omitempty"`
	Viewer     *ViewerInfo `json:"viewer,omitempty"`
}

// viewerOp is what a client needs to know of op viewer beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from ViewerArgs and
// ViewerAnswer (op_viewer_gen.go).
func viewerOp() OpSpec {
	return OpSpec{
		Name:       OpViewer,
		ActionCaps: map[string][]string{"open": {"takeover"}, "watch": {"screen.read"}},
		Answer:     "`viewer`: url (127.0.0.1, carrying this dvvd's secret for the browser), readOnly",
	}
}
