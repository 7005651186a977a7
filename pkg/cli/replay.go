package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/localfile"
	"github.com/dvvhq/dvv/pkg/script"
	"github.com/dvvhq/dvv/pkg/wire"
)

// ExitDiverged is replay's status when the screen is not what the
// recording showed before an act (the checkpoint's expect did not settle).
const ExitDiverged = ExitNotSettled

// actHeader is the comment an exported script puts before each act:
// its number, its time in the recording and the checkpoint's crop.
var actHeader = regexp.MustCompile(`^# act (\d+) t=([0-9.]+) box=(-|(\d+),(\d+),(\d+),(\d+)):`)

// scriptAct is what an exported script's comments say of one act.
type scriptAct struct {
	n   int
	t   float64
	box box // empty: no checkpoint (a flat screen there)
}

// box is a checkpoint's crop in framebuffer pixels (no image package in
// dvv: it would slow every dvv call's start-up, docs/benchmarks.md).
type box struct{ x, y, w, h int }

func (b box) empty() bool { return b.w <= 0 || b.h <= 0 }

// exportedActs reads an exported script's act headers by line: each step
// belongs to the act whose header is above it.
func exportedActs(src string) map[int]scriptAct {
	byLine := map[int]scriptAct{}
	var cur scriptAct
	for i, line := range strings.Split(src, "\n") {
		if m := actHeader.FindStringSubmatch(line); m != nil {
			cur = scriptAct{}
			cur.n, _ = strconv.Atoi(m[1])
			cur.t, _ = strconv.ParseFloat(m[2], 64)
			if m[3] != "-" {
				x, _ := strconv.Atoi(m[4])
				y, _ := strconv.Atoi(m[5])
				w, _ := strconv.Atoi(m[6])
				h, _ := strconv.Atoi(m[7])
				cur.box = box{x, y, w, h}
			}
			continue
		}
		byLine[i+1] = cur
	}
	return byLine
}

// writeExportedScript runs dvvd's script writer on a recording (its
// decoder stays out of dvv, as for the MP4 export).
func writeExportedScript(e *env, rec, out string) error {
	if filepath.Ext(rec) != ".fbs" {
		return usageErr("%s is not a desktop recording (.fbs; see dvv record list): a script needs the screen to check", rec)
	}
	if _, err := os.Stat(rec); err != nil {
		return localErr(wire.NotFound, "the recording: %v", err)
	}
	return runRenderer(e, "__export-script", rec, out)
}

// runRenderer runs dvvd as a one-shot renderer of pictures (its decoder
// and image code stay out of dvv).
func runRenderer(e *env, args ...string) error {
	dvvd, err := findDvvd()
	if err != nil {
		return localErr(wire.Unsupported, "reading a recording or pictures needs dvvd's decoder: no dvvd beside dvv or on $PATH")
	}
	var stderr strings.Builder
	cmd := exec.CommandContext(e.ctx, dvvd, args...)
	cmd.Stderr = &limitedWriter{w: &stderr, n: 8 << 10}
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		we := localErr(wire.BadRequest, "%s", msg).(*wire.Error)
		we.Next = "give a desktop recording dvv made and its .acts.jsonl beside it (`dvv record list LIMB` prints the paths), and a directory of your own to write into"
		return we
	}
	return nil
}

type replayOptions struct {
	scriptOptions
	from, to  int
	speed     string
	threshold float64
	settle    duration
}

func replayCmd(e *env) *cobra.Command {
	var o replayOptions
	cmd := &cobra.Command{
		Use:   "replay <file.fbs> --limb L",
		Short: "Re-issue a desktop recording's acts on a limb, stopping where the screen is not what the recording showed",
		Long: "Replay re-issues a recording's acts (clicks, drags, scrolls, keys, typed text) on --limb through the\n" +
			"same fences, over one attachment and one lease, as `dvv script` runs a script. Before each act it\n" +
			"compares the screen around the act's point with the recording's at that moment; where they differ\n" +
			"it stops before the act, writes act-N-expected.png, act-N-actual.png and act-N-diff.png into\n" +
			"--artifacts and exits " + strconv.Itoa(ExitDiverged) + " naming the act. Typed text is never recorded: act N's text\n" +
			"is --var text_N=…. docs/scripts.md has the tolerance.",
		Example: "  dvv replay ./vnc-1a2b3c4d-20260101T120000.000Z.fbs --limb vnc-9c0ffee1\n" +
			"  dvv replay REC.fbs --limb vnc-9c0ffee1 --from 3 --to 8 --speed recorded --var text_4=hello",
		Args: exactArgs(1, "replay needs the recording's .fbs file (dvv record list LIMB prints the paths)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.replay(args[0], o, cmd)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.limb, "limb", "", "the limb to replay on (required)")
	f.StringArrayVar(&o.vars, "var", nil, "text_N=value: the text act N typed (repeatable)")
	f.StringVar(&o.artifacts, "artifacts", "", "where the pictures of a divergence go (default: a new ./dvv-replay-* directory)")
	f.IntVar(&o.from, "from", 1, "the first act to replay")
	f.IntVar(&o.to, "to", 0, "the last act to replay (default: the last)")
	f.StringVar(&o.speed, "speed", "fast", "fast (go on as soon as the screen matches) or recorded (wait the recorded time between acts)")
	f.Float64Var(&o.threshold, "threshold", 0.9, "least similarity of the screen to the recording around an act, 0..1")
	addDuration(f, &o.settle, "settle", 5*time.Second, "how long the screen may take to match the recording before an act")
	return cmd
}

// replay exports the recording as a script, keeps the acts --from and
// --to choose, and runs them as `dvv script` does, stopping with the
// pictures where the screen is not what the recording showed.
func (e *env) replay(rec string, o replayOptions, cmd *cobra.Command) error {
	if err := o.check(); err != nil {
		return err
	}
	vars, err := replayVars(o.vars)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "dvv-replay-")
	if err != nil {
		return localErr(wire.BadRequest, "a work directory: %v", err)
	}
	defer os.RemoveAll(work)
	src, err := exportedScript(e, rec, work)
	if err != nil {
		return err
	}
	acts := exportedActs(src)
	if err := o.clampActs(acts); err != nil {
		return err
	}
	if err := o.typedText(src, vars); err != nil {
		return err
	}
	vars["script_dir"] = work
	all, err := script.Parse(src, vars)
	if err != nil {
		return scriptErr(err)
	}
	o.stopped = o.divergenceReport(work, acts)
	return e.runScript(o.chosenSteps(all, acts), o.scriptOptions)
}

// check refuses flags replay cannot honour.
func (o *replayOptions) check() error {
	if o.limb == "" {
		return usageErr("replay needs --limb: the limb to replay on")
	}
	if o.speed != "fast" && o.speed != "recorded" {
		return usageErr("--speed must be fast or recorded, not %q", o.speed)
	}
	if o.threshold <= 0 || o.threshold > 1 {
		return usageErr("--threshold %v: a similarity from 0 (exclusive) to 1", o.threshold)
	}
	if o.from < 1 || (o.to != 0 && o.to < o.from) {
		return usageErr("--from %d --to %d: acts are numbered from 1, and --to is not before --from", o.from, o.to)
	}
	return nil
}

// replayVars reads the --var name=value flags.
func replayVars(flags []string) (map[string]string, error) {
	vars := map[string]string{}
	for _, v := range flags {
		name, value, err := script.ParseVar(v)
		if err != nil {
			return nil, usageErr("%v", err)
		}
		vars[name] = value
	}
	return vars, nil
}

// exportedScript writes the recording's script into work (its checkpoint
// pictures beside it) and reads it back.
func exportedScript(e *env, rec, work string) (string, error) {
	path := filepath.Join(work, "replay.dvv")
	if err := writeExportedScript(e, rec, path); err != nil {
		return "", err
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return "", localErr(wire.BadRequest, "%v", err)
	}
	return string(src), nil
}

// clampActs ends --to at the recording's last act (and sets it when it
// was not given); --from past it is refused.
func (o *replayOptions) clampActs(acts map[int]scriptAct) error {
	last := 0
	for _, a := range acts {
		last = max(last, a.n)
	}
	if o.to == 0 || o.to > last {
		o.to = last
	}
	if o.from > last {
		return usageErr("--from %d: the recording has %d acts", o.from, last)
	}
	return nil
}

// typedVar is where an exported script types an act's text.
var typedVar = regexp.MustCompile(`\$\{text_(\d+)\}`)

// typedText asks for the text of each act replayed that typed some (a
// recording never holds it) and puts a placeholder for the rest.
func (o *replayOptions) typedText(src string, vars map[string]string) error {
	for _, m := range typedVar.FindAllStringSubmatch(src, -1) {
		n, _ := strconv.Atoi(m[1])
		name := "text_" + m[1]
		if _, ok := vars[name]; ok {
			continue
		}
		if n >= o.from && n <= o.to {
			return usageErr("act %d typed text, which a recording never holds: give it with --var %s=TEXT", n, name)
		}
		vars[name] = ""
	}
	return nil
}

// chosenSteps are the steps of the acts from --from to --to, each numbered
// by its act: the checkpoints hold replay's threshold and settle time, and
// at --speed recorded each act after the first waits the recorded gap.
func (o *replayOptions) chosenSteps(all []script.Step, acts map[int]scriptAct) []script.Step {
	var steps []script.Step
	prevT := -1.0
	for _, s := range all {
		a := acts[s.Line]
		if a.n < o.from || a.n > o.to {
			continue
		}
		if s.Verb() == "expect" {
			s.Args = replaceFlag(replaceFlag(s.Args, "--threshold", strconv.FormatFloat(o.threshold, 'f', -1, 64)), "--timeout", o.settle.d.String())
		}
		first := len(steps) == 0 || steps[len(steps)-1].Line != a.n
		if first && o.speed == "recorded" && prevT >= 0 && a.t > prevT {
			steps = append(steps, recordedGap(a, prevT))
		}
		if first {
			prevT = a.t
		}
		s.Line = a.n
		steps = append(steps, s)
	}
	return steps
}

// recordedGap is the wait before act a as recorded, after an act at prevT.
func recordedGap(a scriptAct, prevT float64) script.Step {
	gap := time.Duration((a.t - prevT) * float64(time.Second)).Round(time.Millisecond)
	return script.Step{Line: a.n, Text: "sleep " + gap.String() + " (as recorded)", Args: []string{"sleep", gap.String()}}
}

// divergenceReport is how replay stops: where an act's checkpoint did not
// settle, with the expected, actual and diff pictures; otherwise as the
// failed step says.
func (o *replayOptions) divergenceReport(work string, acts map[int]scriptAct) func(r *scriptRun, s script.Step, argv []string, rep stepReport) error {
	byNumber := map[int]scriptAct{}
	for _, a := range acts {
		byNumber[a.n] = a
	}
	return func(r *scriptRun, s script.Step, argv []string, rep stepReport) error {
		a := byNumber[s.Line]
		if s.Verb() != "expect" || rep.Code != "NOT_SETTLED" || a.box.empty() {
			return &exitStatus{code: rep.Exit, msg: fmt.Sprintf("replay stopped at act %d (%s): %s", s.Line, s.Text, rep.Code)}
		}
		dir, err := r.divergence(o.artifacts, s.Line, filepath.Join(work, fmt.Sprintf("replay.act-%d.png", s.Line)), a.box)
		if err != nil {
			return err
		}
		return &exitStatus{code: ExitDiverged, msg: fmt.Sprintf("replay stopped before act %d: the screen around it is not what the recording showed (similarity under %v within %s); expected, actual and diff pictures in %s",
			s.Line, o.threshold, o.settle.d, dir)}
	}
}

// replaceFlag sets a flag's value in a step's words.
func replaceFlag(args []string, flag, value string) []string {
	out := append([]string{}, args...)
	for i := 0; i+1 < len(out); i++ {
		if out[i] == flag {
			out[i+1] = value
			return out
		}
	}
	return append(out, flag, value)
}

// divergence writes the pictures of act n's checkpoint that failed: what
// the recording showed (expected), what the limb shows there now (actual)
// and where they differ (diff, drawn by dvvd's renderer: differing pixels
// red over the expected picture, faded).
func (r *scriptRun) divergence(dir string, n int, expectedPath string, b box) (string, error) {
	var err error
	if dir == "" {
		dir, err = os.MkdirTemp(".", "dvv-replay-")
	} else {
		err = localfile.OwnDir(dir)
	}
	if err != nil {
		return "", localErr(wire.BadRequest, "the pictures' directory: %v", err)
	}
	prefix := filepath.Join(dir, fmt.Sprintf("act-%d-", n))
	expected, err := os.ReadFile(expectedPath)
	if err != nil {
		return "", localErr(wire.BadRequest, "%v", err)
	}
	if err := writeLocal(prefix+"expected.png", expected); err != nil {
		return "", err
	}
	region := fmt.Sprintf("%d,%d,%d,%d", b.x, b.y, b.w, b.h)
	if _, stderr, err := r.exec([]string{"screen", r.o.limb, "--region", region, "--out", prefix + "actual.png"}); err != nil {
		return "", localErr(wire.BadRequest, "the actual picture: %v %s", err, strings.TrimSpace(stderr))
	}
	if err := runRenderer(r.e, "__diff-pictures", prefix+"expected.png", prefix+"actual.png", prefix+"diff.png"); err != nil {
		return "", err
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return dir, nil
}
