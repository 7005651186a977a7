package wire

// OpRun is op run's name on the wire.
const OpRun = "run"

// runOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_run_gen.go).
func runOp() OpSpec {
	return OpSpec{Name: OpRun, ListedOn: terminals, Answers: answers("run"), Limb: true, Recorded: true, Kind: KindTerminal, Caps: []string{"exec"},
		Fields: limbFields(fld("command", required("one string, run by the remote user's shell")), fld("cwd"), fld("timeoutMs", atLeast(1), required("run has no default deadline")),
			fld("maxOutputBytes", atLeast(0))),
		Raises: codes(WrongProtocol, Timeout, NotConnected, NotReady),
		Answer: "`run`: exitCode or signal or timedOut, stdout, stderr (or *Base64 when not UTF-8), dropped counts"}
}
