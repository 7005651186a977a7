package wire

// OpRun is op run's name on the wire.
const OpRun = "run"

// runOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_run_gen.go).
func runOp() OpSpec {
	return OpSpec{Name: OpRun, ListedOn: bothKinds, Answers: answers("run"), Limb: true, Recorded: true, Caps: []string{"exec"},
		Fields: limbFields(fld("command", required("one string, run by the remote user's shell")), fld("cwd"), fld("timeoutMs", atLeast(1), required("run has no default deadline")),
			fld("maxOutputBytes", atLeast(0)),
			fld("stdinBase64", note("the command's standard input, base64, ≤ 8 MiB decoded; never kept in history, acts or recordings")),
			fld("env", note("NAME=VALUE entries the command sees (≤ 256); exported by the remote shell, not sent as SSH environment requests")),
			fld("sudo", note("run as root through `sudo -n`; SUDO_REFUSED when sudo would ask for a password"))),
		Raises: codes(WrongProtocol, Timeout, NotConnected, NotReady, SudoRefused),
		Answer: "`run`: exitCode or signal or timedOut, stdout, stderr (or *Base64 when not UTF-8), dropped counts; sudo when it ran as root, via (the channel: ssh for a terminal limb's own connection, sidecar for a desktop limb's SSH sidecar, whose failure to connect is NOT_CONNECTED with cause FILES_UNAVAILABLE or the SSH code)"}
}
