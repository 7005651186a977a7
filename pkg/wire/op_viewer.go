package wire

// OpViewer is op viewer's name on the wire.
const OpViewer = "viewer"

// viewerOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_viewer_gen.go).
func viewerOp() OpSpec {
	return OpSpec{Name: OpViewer, Answers: answers("viewer", "dispatched"), Variant: "action", Variants: []string{"open", "watch"},
		ActionCaps: map[string][]string{"open": {"takeover"}, "watch": {"screen.read"}},
		Fields:     []Field{fld("action", note("open when absent; watch gives a read-only link")), fld("limbId", note("the page to open"))},
		Answer:     "`viewer`: url (127.0.0.1, carrying this dvvd's secret for the browser), readOnly"}
}
