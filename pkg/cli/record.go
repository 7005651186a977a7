package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/recording"
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
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				resp, err := e.call(&wire.Request{Op: wire.OpRecord, LimbID: args[0], Action: action})
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

func recordExportCmd(e *env) *cobra.Command {
	var mp4 bool
	var out string
	var fps int
	cmd := &cobra.Command{
		Use:   "export <file.fbs> --mp4",
		Short: "Render a desktop recording to a video through ffmpeg (runs here; no dvvd needed)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !mp4 {
				return usageErr("say which format: --mp4 (asciicast files play as they are: asciinema play FILE)")
			}
			if !strings.HasSuffix(args[0], ".fbs") {
				return usageErr("%s is not a desktop recording (.fbs); a terminal's .cast plays with asciinema play", args[0])
			}
			if out == "" {
				out = strings.TrimSuffix(args[0], ".fbs") + ".mp4"
			}
			if err := recording.ExportMP4(e.ctx, args[0], out, fps); err != nil {
				if errors.Is(err, recording.ErrNoFFmpeg) {
					return localErr(wire.Unsupported, "%v", err)
				}
				return localErr(wire.BadRequest, "%v", err)
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
