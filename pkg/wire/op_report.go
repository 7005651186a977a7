package wire

// OpReport is op report's name on the wire.
const OpReport = "report"

// ReportArgs are the arguments of op report.
type ReportArgs struct {
	Envelope
}

// ReportAnswer is what a success of op report carries.
type ReportAnswer struct {
	Report *DaemonReport `json:"report,omitempty"`
}

// reportOp is what a client needs to know of op report beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from ReportArgs and
// ReportAnswer (op_report_gen.go).
func reportOp() OpSpec {
	return OpSpec{
		Name:      OpReport,
		ReadOnly:  true,
		RetrySafe: true,
		Caps:      []string{"daemon.admin"},
		Answer:    "`report`: dvvd's version, build, configuration, uptime and last log lines (for `dvv report`; no secret)",
	}
}
