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
		Kind:   KindTerminal,
		Caps:   []string{"exec"},
		Raises: codes(WrongProtocol, Timeout, NotConnected, NotReady),
		Answer: "`run`: exitCode or signal or timedOut, stdout, stderr (or *Base64 when not UTF-8), dropped counts",
	}
}
