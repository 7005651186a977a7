package cli

import (
	"encoding/base64"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

func expectCmd(e *env) *cobra.Command {
	var region string
	var threshold float64
	var timeout duration
	cmd := &cobra.Command{
		Use:   "expect <limbId> <template.png>",
		Short: "Wait until a picture (a button, an icon) is on a desktop, and print where",
		Long: "Search the desktop's mirror for the template (a PNG cut from an earlier `dvv screen`), first\n" +
			"everywhere (or in --region), then only where the screen changes, until it is found or\n" +
			"--timeout passes. Prints the centre, the box, the similarity and the generation to fence a\n" +
			"click with. The score is the zero-mean normalized cross-correlation (1: the template itself,\n" +
			"near 0: an unrelated place); a flat template (a patch of background) is refused with BAD_REQUEST.\n" +
			"Exit status 0 when found; " + fmt.Sprint(ExitNotSettled) + " when the deadline passed first.",
		Example: "  dvv expect vnc-1a2b3c4d ok-button.png\n  dvv expect vnc-1a2b3c4d icon.png --region 0,0,400,300 --threshold 0.9",
		Args:    exactArgs(2, "expect needs a limb id and a PNG file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := limbTarget(args[0])
			if err != nil {
				return err
			}
			req := wire.ExpectArgs{Target: target}
			// The template travels inline: dvvd may be sandboxed or on
			// another machine and cannot be expected to read the caller's path.
			data, err := os.ReadFile(args[1])
			if err != nil {
				return localErr(wire.BadRequest, "read the template: %v", err)
			}
			req.TemplateBase64 = base64.StdEncoding.EncodeToString(data)
			if region != "" {
				if req.Region, err = parseRegion(region); err != nil {
					return err
				}
			}
			// Unset flags stay unsent, so dvvd's documented defaults apply.
			if cmd.Flags().Changed("threshold") {
				req.Threshold = &threshold
			}
			if timeout.set {
				req.TimeoutMs = timeout.ms()
			}
			resp, err := request(e, (*client.Client).Expect, req)
			if err != nil || resp.Expect == nil {
				return err
			}
			x := resp.Expect
			if !x.Found {
				return &exitStatus{code: ExitNotSettled, msg: fmt.Sprintf("not found within %d ms (%s)", x.ElapsedMs, x.Detail)}
			}
			if e.human() {
				fmt.Fprintf(e.stdout, "%d,%d  box %d,%d,%d,%d  score %.3f  generation %d\n", x.Center.X, x.Center.Y,
					x.Box.X, x.Box.Y, x.Box.W, x.Box.H, x.Score, x.Generation)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&region, "region", "", "x,y,w,h: look only here")
	cmd.Flags().Float64Var(&threshold, "threshold", 0.95, "least similarity that counts as found, 0..1")
	addDuration(cmd.Flags(), &timeout, "timeout", 8*time.Second, "give up after this long (dvvd clamps it to 25s)")
	return cmd
}
