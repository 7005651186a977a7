package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/script"
	"github.com/dvvhq/dvv/pkg/wire"
)

// StepReport is one step of a script's report, as `dvv script --json`
// prints it.
type StepReport = stepReport

// Step statuses of a StepReport.
const (
	StepOK         = stepOK
	StepVerified   = stepVerified
	StepUnverified = stepUnverified
	StepFailed     = stepFailed
)

// ScriptOptions are `dvv script`'s flags for a caller that runs a script
// over its own attachment (dvvmcp's dvv_script).
type ScriptOptions struct {
	Limb      string            // --limb: the limb every step acts on
	Vars      map[string]string // --var name=value
	Dir       string            // the script's directory, ${script_dir} (unless Vars names it)
	Artifacts string            // --artifacts: where a failed step's screenshot goes
	Vncdo     bool              // the source is vncdotool command lines
	NoLease   bool              // --no-lease
	Timeout   time.Duration     // --timeout of every step (0: each op's own)
}

// RunScript runs a script's source over the attachment c exactly as
// `dvv script` does over its own: the steps are checked before any runs,
// with a limb one lease is taken for the run (unless c holds it already,
// the script has control steps, or NoLease) and given back at its end,
// the limb's screen is read once before the first step, a read step
// clears the typing fence and the first failure stops the run. It answers
// a report per step run; the error is nil when every step passed, the
// failed step's (its report is the last) or why nothing ran.
func RunScript(ctx context.Context, c *client.Client, src string, o ScriptOptions) ([]StepReport, error) {
	vars := map[string]string{}
	if o.Dir != "" {
		vars["script_dir"] = o.Dir
	}
	for k, v := range o.Vars {
		vars[k] = v
	}
	var steps []script.Step
	var err error
	if o.Vncdo {
		steps, err = script.ParseVncdo(src, vars)
	} else {
		steps, err = script.Parse(src, vars)
	}
	if err != nil {
		return nil, scriptRefusal(scriptErr(err))
	}
	if o.Limb != "" {
		if _, err := limbTarget(o.Limb); err != nil {
			return nil, scriptRefusal(err)
		}
	}
	argvs, ownControl, err := scriptArgvs(steps, o.Limb)
	if err != nil {
		return nil, scriptRefusal(err)
	}
	e := &env{ctx: ctx, stdin: strings.NewReader(""), getenv: os.Getenv, lookupEnv: os.LookupEnv}
	if o.Timeout > 0 {
		e.timeout = duration{d: o.Timeout, set: true}
	}
	e.humanStreams(io.Discard, io.Discard)
	var reps []StepReport
	so := scriptOptions{limb: o.Limb, artifacts: o.Artifacts, noLease: o.NoLease,
		collect: func(r stepReport) { reps = append(reps, r) }}
	err = e.runSteps(c, steps, argvs, ownControl, so)
	var st *exitStatus
	if err != nil && len(reps) > 0 && errors.As(err, &st) {
		last := reps[len(reps)-1]
		next := last.Next
		if next == "" {
			// A step that ended without dvvd's hint (a wait or expect that
			// did not settle, a run's remote exit status).
			next = "read the screen to see where the script stopped, then fix that step or wait for the screen, and run the steps from it"
		}
		return reps, &wire.Error{Code: wire.Code(last.Code), Message: fmt.Sprintf("line %d (%s): %s", last.Line, last.Step, last.Message), Next: next}
	}
	return reps, err
}

// scriptRefusal is a script refused before any step ran, as a coded error.
func scriptRefusal(err error) error {
	var ue *usageError
	if errors.As(err, &ue) {
		return &wire.Error{Code: wire.BadRequest, Message: ue.msg,
			Next: "fix the script (docs/scripts.md lists the steps and verbs); no step ran"}
	}
	return err
}
