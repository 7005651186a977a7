package cli

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

func recordCmd(e *env) *cobra.Command {
	c := asGroup(&cobra.Command{
		Use:   "record",
		Short: "Record a limb: terminals as asciicast v2, desktops as FBS (RFB session), acts beside them",
		Long: "record keeps what happens on a limb in files an existing player reads: a terminal's output as\n" +
			"asciicast v2 (`asciinema play FILE`), a desktop's screen as an FBS RFB session recording (noVNC's\n" +
			"player, rfbproxy), recorded from the mirror only when it changes. Every act (op, where, key names,\n" +
			"typed text as its length only, the answer's code) goes to FILE.acts.jsonl on the same clock. Files\n" +
			"are 0600 under $XDG_STATE_HOME/dvv/recordings; a recording ends by itself at 1 GiB.",
	})
	act := func(action, short string) *cobra.Command {
		return &cobra.Command{
			Use:   action + " <limb>",
			Short: short,
			Args:  exactArgs(1, "record "+action+" needs a limb id (`dvv limbs` lists them; the browser viewer's recordings page lists every limb's)"),
			RunE: func(cmd *cobra.Command, args []string) error {
				// record names a limb by id only: recordings belong to a limb,
				// and a group member's id is in `dvv group ls`.
				resp, err := request(e, (*client.Client).Record, wire.RecordArgs{Target: wire.Target{LimbID: args[0]}, Action: action})
				if err != nil || !e.human() {
					return err
				}
				printRecordings(e, resp.Recordings)
				return nil
			},
		}
	}
	list := act("list", "List the limb's recordings, newest first")
	list.Aliases = []string{"ls"}
	c.AddCommand(act("start", "Start recording the limb"), act("stop", "Stop the limb's recording"), list, recordExportCmd(e))
	return c
}

// recordExportCmd renders on this machine: the recording is a local file
// and ffmpeg a local tool, so export needs no dvvd running (exportMP4 runs
// the dvvd binary once, as a renderer).
func recordExportCmd(e *env) *cobra.Command {
	var mp4, acts bool
	var out, scriptOut string
	var fps int
	cmd := &cobra.Command{
		Use:   "export <file.fbs|file.cast> --mp4 [--acts] | export <file.fbs> --script FILE.dvv",
		Short: "Render a recording to a video through ffmpeg, its acts drawn in with --acts (runs here; no running dvvd needed)",
		Long: "export renders a recording to an H.264 MP4 through ffmpeg on this machine: a desktop's .fbs as the\n" +
			"screen was, a terminal's .cast as its text grid. --acts draws each act on the frames from the one it\n" +
			"was sent on, for a second: a ring at the point of a click, a label for keys and typed text (its\n" +
			"length only; the act log never holds the text), refused acts in red.\n" +
			"--script writes a desktop recording's acts as a dvv script instead (docs/scripts.md): before each\n" +
			"act an expect on a crop of the recorded screen around it, saved beside the script, so\n" +
			"`dvv script --limb L FILE.dvv` replays the task and stops where the screen differs.",
		Args: exactArgs(1, "record export needs the recording's file (`dvv record list LIMB` prints the paths)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if scriptOut != "" {
				if mp4 || acts || cmd.Flags().Changed("out") || cmd.Flags().Changed("fps") {
					return usageErr("--script writes a script: --mp4, --acts, --out and --fps are for a video")
				}
				if err := writeExportedScript(e, args[0], scriptOut); err != nil {
					return err
				}
				if e.human() {
					fmt.Fprintln(e.stdout, "wrote", scriptOut)
				} else {
					e.printJSON(map[string]string{"result": "record_export", "out": scriptOut})
				}
				return nil
			}
			if !mp4 {
				return usageErr("say which format: --mp4 or --script FILE.dvv")
			}
			ext := filepath.Ext(args[0])
			if ext != ".fbs" && ext != ".cast" {
				return usageErr("%s is not a recording dvv made: a desktop's ends in .fbs, a terminal's in .cast (see dvv record list)", args[0])
			}
			if fps < 1 || fps > 60 {
				return usageErr("--fps %d: say 1 to 60 frames a second", fps)
			}
			if out == "" {
				out = strings.TrimSuffix(args[0], ext) + ".mp4"
			}
			if err := exportMP4(e, args[0], out, fps, acts); err != nil {
				return err
			}
			if e.human() {
				fmt.Fprintln(e.stdout, "wrote", out)
			} else {
				e.printJSON(map[string]string{"result": "record_export", "out": out})
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&mp4, "mp4", false, "H.264 MP4 through ffmpeg")
	cmd.Flags().StringVar(&out, "out", "", "the video's path (default: the recording's, with .mp4)")
	cmd.Flags().IntVar(&fps, "fps", 10, "frames a second")
	cmd.Flags().BoolVar(&acts, "acts", false, "draw the acts (FILE.acts.jsonl) into the video")
	cmd.Flags().StringVar(&scriptOut, "script", "", "write the acts as a dvv script to this file, a checkpoint picture beside it per act")
	return cmd
}

func printRecordings(e *env, rs []wire.Recording) {
	if len(rs) == 0 {
		fmt.Fprintln(e.stdout, "no recordings")
		return
	}
	t := newTable(e.stdout, "STARTED", "FORMAT", "BYTES", "ACTS", "STATE", "PATH")
	for _, r := range rs {
		state := "recording"
		if !r.Active {
			state = r.Ended
			if state == "" {
				state = "done"
			}
		}
		acts := fmt.Sprint(r.Acts)
		if r.Dropped > 0 {
			acts += fmt.Sprintf(" (+%d dropped)", r.Dropped)
		}
		t.row(time.UnixMilli(r.StartedMs).Format(time.DateTime), r.Format, fmt.Sprint(r.Bytes), acts, state, r.Path)
	}
	t.flush()
}

// exportMP4 renders an FBS recording through the dvvd binary run as a
// one-shot renderer (not as the daemon): the RFB decoder that plays a
// recording back lives there, and linking it into dvv would slow every dvv
// call. The argument and exit statuses are cmd/dvvd/export.go's.
func exportMP4(e *env, in, out string, fps int, acts bool) error {
	dvvd, err := findDvvd()
	if err != nil {
		return localErr(wire.Unsupported, "rendering a recording needs dvvd's decoder: no dvvd beside dvv or on $PATH")
	}
	var stderr strings.Builder
	args := []string{"__export-mp4", in, out, strconv.Itoa(fps)}
	if acts {
		args = append(args, "acts")
	}
	cmd := exec.CommandContext(e.ctx, dvvd, args...)
	cmd.Stderr = &limitedWriter{w: &stderr, n: 8 << 10}
	err = cmd.Run()
	msg := strings.TrimSpace(stderr.String())
	var exit *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &exit) && exit.ExitCode() == 3:
		return localErr(wire.Unsupported, "%s", msg)
	case errors.As(err, &exit) && exit.ExitCode() == 4:
		we := localErr(wire.TooLarge, "%s", msg).(*wire.Error)
		we.Next = "export a shorter recording: stop recording sooner next time (`dvv record stop LIMB`); a lower --fps does not shorten the video"
		return we
	case errors.As(err, &exit) && msg != "":
		return localErr(wire.BadRequest, "%s", msg)
	default:
		return localErr(wire.BadRequest, "rendering %s through %s: %v", in, dvvd, err)
	}
}

// limitedWriter keeps the first n bytes written to it.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
