package cli

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/wire"
)

func viewerCmd(e *env) *cobra.Command {
	var readOnly, noOpen bool
	c := &cobra.Command{
		Use:   "viewer [limbId]",
		Short: "Watch every limb live in a browser; take over, hand back, pause agents",
		Long: "dvvd serves the viewer on 127.0.0.1 with a secret made at its start. This prints the link (it carries\n" +
			"the secret, which the page moves into a cookie: do not share it) and opens a browser when there is\n" +
			"one. --read-only gives a link that can only watch.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := wire.ViewerArgs{Action: "open"}
			if readOnly {
				req.Action = "watch"
			}
			if len(args) == 1 {
				req.LimbID = args[0]
			}
			resp, err := e.call(req)
			if err != nil || !e.human() || resp.Viewer == nil {
				return err
			}
			fmt.Fprintln(e.stdout, resp.Viewer.URL)
			if !noOpen {
				openBrowser(e, resp.Viewer.URL)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&readOnly, "read-only", false, "a link that can only watch")
	c.Flags().BoolVar(&noOpen, "no-open", false, "print the link only")
	return c
}

// openBrowser starts the desktop's browser when there is a desktop; the
// link is printed either way.
func openBrowser(e *env, url string) {
	var cmd *exec.Cmd
	switch {
	case runtime.GOOS == "darwin":
		cmd = exec.Command("open", url)
	case os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != "":
		if _, err := exec.LookPath("xdg-open"); err != nil {
			return
		}
		cmd = exec.Command("xdg-open", url)
	default:
		return
	}
	if err := cmd.Start(); err == nil {
		go cmd.Wait()
		fmt.Fprintln(e.stderr, "opened in your browser")
	}
}
