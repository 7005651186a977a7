package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/localfile"
	"github.com/dvvhq/dvv/pkg/script"
	"github.com/dvvhq/dvv/pkg/wire"
)

// Statuses of a script step in the report (docs/scripts.md).
const (
	stepOK         = "ok"         // done; an act whose effect was not watched for
	stepVerified   = "verified"   // an act whose effect was seen
	stepUnverified = "unverified" // an act sent whose effect was not seen in time
	stepFailed     = "failed"
)

// notInScripts are the commands a script step may not be: another
// runner, the daemon's own life, and what only a person at a terminal uses.
var notInScripts = []string{"script", "replay", "daemon", "service", "help", "completion", "gen-docs", "man", "events", "doctor", "report"}

// readSteps are the steps that read the screen: after one, the runner reads
// what repainted (as `dvv type --read` does), so the typing fence is
// cleared the way a person's `dvv screen` clears it.
var readSteps = []string{"wait", "find", "expect"}

type scriptOptions struct {
	limb      string
	vars      []string
	artifacts string
	vncdo     bool
	noLease   bool
	group     string
	// member names the group member a run is for, in its report.
	member string
	// ready, when set, is called once the run holds its lease and read
	// the screen, before its first step (a group's members wait there
	// until every member started).
	ready func()
	// stopped, when set, says what a failed step means beyond its own
	// failure (replay: where the screen diverged, with its pictures).
	stopped func(r *scriptRun, s script.Step, argv []string, rep stepReport) error
}

func scriptCmd(e *env) *cobra.Command {
	var o scriptOptions
	cmd := &cobra.Command{
		Use:   "script [FILE|-] | script --vncdo [FILE | -- VERB ARGS...]",
		Short: "Run a file of dvv steps (or vncdotool verbs) over one attachment and one lease, stopping at the first failure",
		Long: "Run a script: one step a line, written as dvv's own commands without \"dvv\" (and without the limb\n" +
			"when --limb is given), '#' comments, ${name} from --var name=value, `sleep 500ms`, and vncdotool's\n" +
			"verbs (move, click N, mousedown, mouseup, drag, key ctrl-c, capture, expect FILE FUZZ, pause).\n" +
			"All steps share one attachment, and with --limb one lease, acquired before the first step and\n" +
			"released after the last (unless the script has control steps of its own, or --no-lease).\n" +
			"The fences hold: a wait, find or expect step reads the screen and clears the typing fence as\n" +
			"`dvv screen` does; a type or key the fence refuses stops the script at that line.\n" +
			"Prints a line per step (line, step, status ok|verified|unverified|failed, ms); --json one object\n" +
			"per step. The exit status is the failed step's (0 when every step passed); --artifacts DIR gets\n" +
			"a screenshot of the limb at the failure. docs/scripts.md has the syntax and the vncdotool mapping.",
		Example: "  dvv script --limb vnc-1a2b3c4d login.dvv --var user=ann\n" +
			"  dvv script --limb vnc-1a2b3c4d --artifacts ./failed - < steps.dvv\n" +
			"  dvv script --limb vnc-1a2b3c4d --vncdo -- type hello key enter capture out.png",
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			steps, err := o.steps(e, cmd, args)
			if err != nil {
				return err
			}
			if o.group != "" {
				if o.limb != "" {
					return usageErr("--group runs the script on every member: give --group or --limb, not both")
				}
				return e.runGroupScript(steps, o)
			}
			return e.runScript(steps, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.limb, "limb", "", "the limb (id or GROUP/MEMBER) every step acts on: steps are then written without it")
	f.StringArrayVar(&o.vars, "var", nil, "name=value: the value of ${name} in the script (repeatable)")
	f.StringVar(&o.artifacts, "artifacts", "", "directory for what a failed step leaves: a screenshot of the limb (line-N.png)")
	f.BoolVar(&o.vncdo, "vncdo", false, "read vncdotool's command line (after --) or a file of vncdotool command lines")
	f.StringVar(&o.group, "group", "", "run the script on every member of this group at once (steps written without a limb), a report per member")
	f.BoolVar(&o.noLease, "no-lease", false, "take no lease for the script: its own control steps, or the shell's lease, apply")
	return cmd
}

// steps reads the script the command line names.
func (o *scriptOptions) steps(e *env, cmd *cobra.Command, args []string) ([]script.Step, error) {
	vars := map[string]string{}
	for _, v := range o.vars {
		name, value, err := script.ParseVar(v)
		if err != nil {
			return nil, usageErr("%v", err)
		}
		vars[name] = value
	}
	dash := cmd.ArgsLenAtDash()
	if o.vncdo && dash >= 0 {
		if dash != 0 {
			return nil, usageErr("--vncdo takes vncdotool's verbs after --, or one file")
		}
		steps, err := script.Chain(args)
		if err != nil {
			return nil, scriptErr(err)
		}
		return steps, nil
	}
	if len(args) != 1 {
		return nil, usageErr("script needs one file (or - for stdin)")
	}
	var src []byte
	var err error
	dir := "."
	if args[0] == "-" {
		src, err = io.ReadAll(io.LimitReader(e.stdin, 16<<20))
	} else {
		src, err = os.ReadFile(args[0])
		dir = filepath.Dir(args[0])
	}
	// ${script_dir}: the script's own directory, so a script names the
	// files beside it (an exported script's checkpoints) from anywhere.
	if _, given := vars["script_dir"]; !given {
		if abs, aerr := filepath.Abs(dir); aerr == nil {
			vars["script_dir"] = abs
		}
	}
	if err != nil {
		return nil, localErr(wire.BadRequest, "read the script: %v", err)
	}
	var steps []script.Step
	if o.vncdo {
		steps, err = script.ParseVncdo(string(src), vars)
	} else {
		steps, err = script.Parse(string(src), vars)
	}
	if err != nil {
		return nil, scriptErr(err)
	}
	return steps, nil
}

// scriptErr is a mistake in the script: nothing ran.
func scriptErr(err error) error {
	return usageErr("the script: %v (nothing was run)", err)
}

// stepReport is one line of the report; --json prints it as an object.
type stepReport struct {
	Member  string `json:"member,omitempty"` // GROUP/INDEX, with --group
	Line    int    `json:"line"`
	Step    string `json:"step"`
	Status  string `json:"status"`
	Ms      int64  `json:"ms"`
	Exit    int    `json:"exit,omitempty"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	Next    string `json:"next,omitempty"`
	// Output is what the step printed (a find's lines, a run's output).
	Output string `json:"output,omitempty"`
	// Screenshot is the picture of the limb --artifacts kept at a failure.
	Screenshot string `json:"screenshot,omitempty"`
}

// scriptRun is one script's run: its one attachment and what it last got.
type scriptRun struct {
	e    *env
	c    *client.Client
	o    scriptOptions
	last *wire.Reply // the last answer line of the current step
}

// runScript runs steps in order over one attachment, stopping at the first
// that fails, and answers that step's exit status.
func (e *env) runScript(steps []script.Step, o scriptOptions) error {
	if o.limb != "" {
		if _, err := limbTarget(o.limb); err != nil {
			return err
		}
	}
	argvs := make([][]string, len(steps))
	ownControl := false
	for i, s := range steps {
		argv, err := stepArgv(s, o.limb)
		if err != nil {
			return err
		}
		argvs[i] = argv
		ownControl = ownControl || s.Verb() == "control"
	}
	c, err := e.dial(e.ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	r := &scriptRun{e: e, c: c, o: o}
	if o.limb != "" && !o.noLease && !ownControl {
		release, err := r.lease()
		if err != nil {
			return err
		}
		defer release()
	}
	if o.limb != "" {
		if err := r.startRead(); err != nil {
			return err
		}
	}
	if o.ready != nil {
		o.ready()
	}
	for i, s := range steps {
		rep, err := r.step(s, argvs[i])
		rep.Member = o.member
		r.report(rep)
		if err != nil && o.stopped != nil {
			return o.stopped(r, s, argvs[i], rep)
		}
		if err != nil {
			return &exitStatus{code: rep.Exit, msg: fmt.Sprintf("the script stopped at line %d (%s): %s", s.Line, s.Text, rep.Code)}
		}
	}
	return nil
}

// startRead reads the limb's screen as the script starts, in history as a
// screen read: the script was written for the screen it starts on, as a
// person looks before acting. It gives the clicks their generation and the
// first type its read; after that only the script's own read steps clear
// the typing fence.
func (r *scriptRun) startRead() error {
	target, _ := limbTarget(r.o.limb)
	ctx, cancel := context.WithTimeout(r.e.ctx, r.e.deadline(nil))
	defer cancel()
	_, err := r.c.Screen(ctx, wire.ScreenArgs{Target: target, Form: "damage-crop"})
	return err
}

// runGroupScript runs the script on every member of a group at once, each
// over its own attachment with its own lease: every member starts (leased,
// its screen read) before any runs its first step, and one failing never
// stops the others. The reports come a member after another, in member
// order; the exit status is the first failed member's.
func (e *env) runGroupScript(steps []script.Step, o scriptOptions) error {
	g, err := quiet(e, (*client.Client).GroupList, wire.GroupListArgs{GroupID: o.group})
	if err != nil {
		return err
	}
	if g.Group == nil || len(g.Group.Members) == 0 {
		return localErr(wire.NotFound, "group %s has no members", o.group)
	}
	members := g.Group.Members
	type outcome struct {
		out, errOut bytes.Buffer
		err         error
	}
	results := make([]*outcome, len(members))
	var started, done sync.WaitGroup
	started.Add(len(members))
	for i, m := range members {
		res := &outcome{}
		results[i] = res
		me := &env{socket: e.socket, session: e.session, json: e.json, verify: e.verify, timeout: e.timeout,
			stdin: e.stdin, getenv: e.getenv, lookupEnv: e.lookupEnv, ctx: e.ctx}
		me.humanStreams(&res.out, &res.errOut)
		mo := o
		mo.group, mo.limb, mo.member = "", m.LimbID, fmt.Sprintf("%s/%d", o.group, m.Index)
		var once sync.Once
		mo.ready = func() { once.Do(started.Done); started.Wait() }
		done.Add(1)
		go func() {
			defer done.Done()
			res.err = me.runScript(steps, mo)
			once.Do(started.Done) // a member that failed to start holds nobody up
		}()
	}
	done.Wait()
	var first error
	for i, m := range members {
		res := results[i]
		if !e.json {
			fmt.Fprintf(e.stdout, "%s/%d %s\n", o.group, m.Index, m.LimbID)
		}
		e.dataOut().Write(res.out.Bytes())
		if res.err == nil {
			continue
		}
		var st *exitStatus
		if !errors.As(res.err, &st) {
			// The member did not start (its lease, its limb): its report
			// is that one failure, at line 0.
			rep := stepReport{Member: fmt.Sprintf("%s/%d", o.group, m.Index), Step: "(start)", Status: stepFailed}
			rep.Exit = (&env{stderr: io.Discard, stdout: io.Discard}).finish(res.err)
			rep.Code, rep.Message, rep.Next = stepFailure(res.err, "")
			st = &exitStatus{code: rep.Exit}
			if e.json {
				e.printJSON(rep)
			}
			fmt.Fprintf(e.stderr, "%s did not start: %s: %s\n", rep.Member, rep.Code, rep.Message)
			if rep.Next != "" {
				fmt.Fprintf(e.stderr, "next: %s\n", rep.Next)
			}
		} else {
			fmt.Fprintf(e.stderr, "%s/%d: %s\n", o.group, m.Index, oneLine(st.msg))
			e.stderr.Write(res.errOut.Bytes())
		}
		if first == nil {
			first = &exitStatus{code: st.code}
		}
	}
	return first
}

// stepArgv is the dvv command line of a step: the limb put where the
// command takes it. A command the script may not run, or one that does
// not exist, is refused before any step runs.
func stepArgv(s script.Step, limb string) ([]string, error) {
	verb := s.Verb()
	if verb == "sleep" {
		if len(s.Args) != 2 {
			return nil, scriptErr(fmt.Errorf("line %d: sleep takes one duration (500ms, 2s; vncdotool's pause takes seconds)", s.Line))
		}
		if _, err := sleepFor(s.Args[1]); err != nil {
			return nil, scriptErr(fmt.Errorf("line %d: %v", s.Line, err))
		}
		return s.Args, nil
	}
	if slices.Contains(notInScripts, verb) || strings.HasPrefix(verb, "-") {
		return nil, scriptErr(fmt.Errorf("line %d: %q cannot be a script step", s.Line, verb))
	}
	root := buildTree(func() *cobra.Command { return newRoot(&env{}) })
	cmd, _, err := root.Find(s.Args)
	if err != nil || cmd == root {
		return nil, scriptErr(fmt.Errorf("line %d: %q is not a dvv command or vncdotool verb (docs/scripts.md lists them)", s.Line, verb))
	}
	if limb == "" || !strings.Contains(cmd.Use, "<limbId>") {
		return s.Args, nil
	}
	depth := len(strings.Fields(cmd.CommandPath())) - 1
	if depth > len(s.Args) || !slices.Equal(s.Args[:depth], strings.Fields(cmd.CommandPath())[1:]) {
		return nil, scriptErr(fmt.Errorf("line %d: write the command's name before its flags (%s …)", s.Line, cmd.CommandPath()[4:]))
	}
	argv := append(append(append([]string{}, s.Args[:depth]...), limb), s.Args[depth:]...)
	return argv, nil
}

// treeMu serialises building command trees: a group's members run their
// steps at once, and building a tree sets cobra's package-wide options.
var treeMu sync.Mutex

func buildTree(build func() *cobra.Command) *cobra.Command {
	treeMu.Lock()
	defer treeMu.Unlock()
	return build()
}

// sleepFor reads sleep's duration: 500ms, 2s, or bare seconds.
func sleepFor(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil {
			return 0, fmt.Errorf("sleep %q: a duration such as 500ms or 2s", s)
		}
		d = time.Duration(f * float64(time.Second))
	}
	if d < 0 || d > time.Hour {
		return 0, fmt.Errorf("sleep %q: from 0 to 1h", s)
	}
	return d, nil
}

// lease takes the limb's lease for the script, unless this attachment holds
// it already; release gives back only what the script took.
func (r *scriptRun) lease() (release func(), err error) {
	target, _ := limbTarget(r.o.limb)
	ctx, cancel := context.WithTimeout(r.e.ctx, r.e.deadline(nil))
	defer cancel()
	st, err := r.c.Control(ctx, wire.ControlArgs{Target: target, Action: "status"})
	if err != nil {
		return nil, err
	}
	if st.Lease != nil && st.Lease.Held {
		return func() {}, nil
	}
	if _, err := r.c.Control(ctx, wire.ControlArgs{Target: target, Action: "acquire", Reason: "dvv script"}); err != nil {
		return nil, err
	}
	return func() {
		// Released even after Ctrl+C: the script's lease must not outlive it.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.e.ctx), 10*time.Second)
		defer cancel()
		r.c.Control(ctx, wire.ControlArgs{Target: target, Action: "release"})
	}, nil
}

// step runs one step and says how it went.
func (r *scriptRun) step(s script.Step, argv []string) (stepReport, error) {
	rep := stepReport{Line: s.Line, Step: s.Text, Status: stepOK}
	start := time.Now()
	var err error
	var out, errOut string
	if s.Verb() == "sleep" {
		d, _ := sleepFor(s.Args[1])
		select {
		case <-time.After(d):
		case <-r.e.ctx.Done():
			err = &exitStatus{code: ExitRunSignal + 2, msg: "interrupted during sleep"}
		}
	} else {
		r.last = nil
		out, errOut, err = r.exec(argv)
		if err == nil {
			rep.Status = verdict(r.last)
			if slices.Contains(readSteps, s.Verb()) {
				err = r.readAfter(argv, s)
			}
		}
	}
	rep.Ms = time.Since(start).Milliseconds()
	rep.Output = strings.TrimRight(out, "\n")
	if err == nil {
		return rep, nil
	}
	rep.Status = stepFailed
	sub := r.subEnv(io.Discard, io.Discard)
	rep.Exit = sub.finish(err)
	rep.Code, rep.Message, rep.Next = stepFailure(err, errOut)
	if r.o.artifacts != "" {
		rep.Screenshot = r.screenshot(s, argv)
	}
	return rep, err
}

// stepFailure is what a failed step's report says: its code, message and hint.
func stepFailure(err error, stderr string) (code, msg, next string) {
	var we *wire.Error
	var st *exitStatus
	var ue *usageError
	switch {
	case errors.As(err, &we):
		code, msg, next = string(we.Code), we.Message, we.Next
		for _, l := range strings.Split(stderr, "\n") {
			if n, ok := strings.CutPrefix(l, "next: "); ok {
				next = n
			}
		}
	case errors.As(err, &st):
		code, msg = "EXIT_"+strconv.Itoa(st.code), st.msg
		if st.code == ExitNotSettled {
			code = "NOT_SETTLED"
		}
		if st.code == ExitNotOnScreen {
			code = "NOT_ON_SCREEN"
		}
	case errors.As(err, &ue):
		code, msg, next = string(wire.BadRequest), ue.msg, "fix the step (dvv COMMAND --help shows its arguments); nothing was sent"
	default:
		code, msg, next = string(wire.BadRequest), err.Error(), "fix the step (dvv COMMAND --help shows its arguments); nothing was sent"
	}
	return code, oneLine(msg), oneLine(next)
}

// verdict is an act's status from what its answer saw of the effect.
func verdict(line *wire.Reply) string {
	if line == nil {
		return stepOK
	}
	v := actVerification(line)
	if v == nil {
		return stepOK
	}
	switch v.Status {
	case wire.VerifyVerified:
		return stepVerified
	case wire.VerifyUnverified:
		return stepUnverified
	}
	return stepOK
}

// subEnv is the environment one step runs in: the script's flags, its
// output captured, every request over the script's one attachment.
func (r *scriptRun) subEnv(stdout, stderr io.Writer) *env {
	e := r.e
	sub := &env{socket: e.socket, session: e.session, verify: e.verify, timeout: e.timeout,
		stdin: strings.NewReader(""), getenv: e.getenv, lookupEnv: e.lookupEnv, ctx: e.ctx}
	sub.humanStreams(stdout, stderr)
	sub.attached = r.c
	return sub
}

// exec runs one dvv command line as a step, answering what it printed.
func (r *scriptRun) exec(argv []string) (stdout, stderr string, err error) {
	var out, errOut bytes.Buffer
	sub := r.subEnv(&out, &errOut)
	root := buildTree(func() *cobra.Command { return newRootFor(sub, argv) })
	root.SetArgs(argv)
	err = root.ExecuteContext(r.e.ctx)
	if sub.last != nil {
		r.last = sub.last
	}
	return out.String(), errOut.String(), err
}

// readAfter reads what repainted on the step's limb after a read step, in
// the script's attachment, as `dvv type --read` does: the typing fence is
// cleared by what the step looked at, never silently before a type.
func (r *scriptRun) readAfter(argv []string, s script.Step) error {
	limb := stepLimb(argv)
	if limb == "" {
		return nil
	}
	target, err := limbTarget(limb)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(r.e.ctx, r.e.deadline(nil))
	defer cancel()
	_, err = r.c.Screen(ctx, wire.ScreenArgs{Target: target, Form: "damage-crop"})
	if isCode(err, wire.WrongProtocol) {
		return nil
	}
	return err
}

// stepLimb is the limb a step's command line names ("" when none).
func stepLimb(argv []string) string {
	root := buildTree(func() *cobra.Command { return newRoot(&env{}) })
	cmd, _, err := root.Find(argv)
	if err != nil || !strings.Contains(cmd.Use, "<limbId>") {
		return ""
	}
	depth := len(strings.Fields(cmd.CommandPath())) - 1
	if depth < len(argv) && !strings.HasPrefix(argv[depth], "-") {
		return argv[depth]
	}
	return ""
}

// screenshot keeps a picture of the failed step's limb in --artifacts.
func (r *scriptRun) screenshot(s script.Step, argv []string) string {
	limb := r.o.limb
	if limb == "" {
		limb = stepLimb(argv)
	}
	if limb == "" {
		return ""
	}
	if err := localfile.OwnDir(r.o.artifacts); err != nil {
		fmt.Fprintf(r.e.stderr, "dvv: --artifacts: %v\n", err)
		return ""
	}
	path := filepath.Join(r.o.artifacts, fmt.Sprintf("line-%d.png", s.Line))
	out, _, err := r.exec([]string{"screen", limb, "--out", path})
	if err != nil {
		fmt.Fprintf(r.e.stderr, "dvv: --artifacts: no screenshot of %s: %v\n", limb, err)
		return ""
	}
	if _, err := os.Stat(path); err != nil {
		// A terminal limb answers its text grid.
		path = strings.TrimSuffix(path, ".png") + ".txt"
		if err := os.WriteFile(path, []byte(out), 0o600); err != nil {
			return ""
		}
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return path
}

// report prints one step's line: an object with --json, else the line
// number, the step, its status and its time, and a failure's code, message
// and hint.
func (r *scriptRun) report(rep stepReport) {
	e := r.e
	if e.json {
		e.printJSON(rep)
		return
	}
	fmt.Fprintf(e.stdout, "%4d  %-44s  %-10s %6d ms\n", rep.Line, oneLine(rep.Step), rep.Status, rep.Ms)
	if rep.Status != stepFailed {
		return
	}
	fmt.Fprintf(e.stderr, "line %d: %s: %s\n", rep.Line, rep.Code, rep.Message)
	if rep.Next != "" {
		fmt.Fprintf(e.stderr, "next: %s\n", rep.Next)
	}
	if rep.Screenshot != "" {
		fmt.Fprintf(e.stderr, "screenshot: %s\n", rep.Screenshot)
	}
}
