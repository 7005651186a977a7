package wire

// OpReport is op report's name on the wire.
const OpReport = "report"

// reportOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_report_gen.go).
func reportOp() OpSpec {
	return OpSpec{Name: OpReport, Answers: answers("report"), ReadOnly: true, RetrySafe: true, Caps: []string{"daemon.admin"},
		Answer: "`report`: dvvd's version, build, configuration, uptime and last log lines (for `dvv report`; no secret)"}
}
