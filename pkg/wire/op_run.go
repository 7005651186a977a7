package wire

// OpRun is op run's name on the wire.
const OpRun = "run"

// RunArgs are the arguments of op run.
type RunArgs struct {
	Envelope
	Target
	// Deadline in milliseconds; there is no default.
	TimeoutMs int `json:"timeoutMs,omitempty" dvv:"required,min=1" need:"run has no default deadline"`
	// One command line, run by the remote user's shell.
	Command string `json:"command,omitempty" dvv:"required" need:"one string, run by the remote user's shell"`
	// Working directory; the home directory when absent.
	Cwd string `json:"cwd,omitempty"`
	// Cap on each of stdout and stderr; above it output is cut and the answer says how much
	// was dropped.
	MaxOutputBytes *int `json:"maxOutputBytes,omitempty" dvv:"min=0"`
	// note: the command's standard input, base64, ≤ 8 MiB decoded; never kept in history,
	// acts or recordings
	StdinBase64 string `json:"stdinBase64,omitempty"`
	// note: NAME=VALUE entries the command sees (≤ 256); exported by the remote shell, not
	// sent as SSH environment requests
	Env []string `json:"env,omitempty"`
	// note: run as root through `sudo -n`; SUDO_REFUSED when sudo would ask for a password
	Sudo bool `json:"sudo,omitempty"`
}

// RunAnswer is what a success of op run carries.
type RunAnswer struct {
	LimbID string     `json:"limbId,omitempty"`
	Run    *RunResult `json:"run,omitempty"`
}

// runOp is what a client needs to know of op run beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from RunArgs and
// RunAnswer (op_run_gen.go).
func runOp() OpSpec {
	return OpSpec{
		Name:   OpRun,
		Limb:   true,
		Caps:   []string{"exec"},
		Raises: codes(WrongProtocol, Timeout, NotConnected, NotReady, SudoRefused),
		Answer: "`run`: exitCode or signal or timedOut, stdout, stderr (or *Base64 when not UTF-8), dropped counts; sudo when it ran as root, via (the channel: ssh for a terminal limb's own connection, sidecar for a desktop limb's SSH sidecar, whose failure to connect is NOT_CONNECTED with cause FILES_UNAVAILABLE or the SSH code)",
	}
}
