package wire

// OpRun is op run's name on the wire.
const OpRun = "run"

// RunArgs are the arguments of op run.
type RunArgs struct {
	Envelope
	Target
	TimeoutMs      int    `json:"timeoutMs,omitempty" dvv:"required,min=1" need:"run has no default deadline"`
	Command        string `json:"command,omitempty" dvv:"required" need:"one string, run by the remote user's shell"`
	Cwd            string `json:"cwd,omitempty"`
	MaxOutputBytes *int   `json:"maxOutputBytes,omitempty" dvv:"min=0"`
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
