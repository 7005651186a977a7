package cli

import (
	"errors"
	"fmt"
	"html"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

func viewerCmd(e *env) *cobra.Command {
	var readOnly, noOpen bool
	c := &cobra.Command{
		Use:   "viewer [limbId]",
		Short: "Watch every limb live in a browser; take over, hand back, pause agents",
		Long: "dvvd serves the viewer on 127.0.0.1 with secrets made at its start. This opens your browser on a\n" +
			"page readable by you only, in dvv's runtime directory, that hands the secret to the viewer; the\n" +
			"secret never goes on a command line, where other users could read it. --no-open prints the link\n" +
			"with the secret instead, to paste into a browser on this machine: do not share it. --read-only\n" +
			"gives a viewer that can only watch.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := wire.ViewerArgs{Action: "open"}
			if readOnly {
				req.Action = "watch"
			}
			if len(args) == 1 {
				req.LimbID = args[0]
			}
			resp, err := request(e, (*client.Client).Viewer, req)
			if err != nil || !e.human() || resp.Viewer == nil {
				return err
			}
			if noOpen {
				fmt.Fprintln(e.stdout, resp.Viewer.URL)
				fmt.Fprintln(e.stderr, "this link carries the viewer's secret: paste it into a browser on this machine, and show it to no one")
				return nil
			}
			openViewer(e, resp.Viewer.URL)
			return nil
		},
	}
	c.Flags().BoolVar(&readOnly, "read-only", false, "a viewer that can only watch")
	c.Flags().BoolVar(&noOpen, "no-open", false, "print the link (it carries the secret) instead of opening a browser")
	return c
}

// openViewer opens the browser on a redirect page holding the link, so
// the opener's and the browser's command lines (readable by every local
// user in /proc) name only a file of ours. It prints the page's address
// and says whether a browser took it.
func openViewer(e *env, link string) {
	page, err := writeRedirect(client.SocketDir(), link)
	if err != nil {
		fmt.Fprintf(e.stderr, "cannot write the viewer's page: %v\nrun `dvv viewer --no-open` and paste the link it prints into a browser on this machine\n", err)
		return
	}
	pageURL := (&url.URL{Scheme: "file", Path: page}).String()
	fmt.Fprintln(e.stdout, pageURL)
	if err := openBrowser(page); err != nil {
		fmt.Fprintf(e.stderr, "did not open a browser (%v): open %s in a browser on this machine, or run `dvv viewer --no-open` and paste the link it prints\n", err, pageURL)
		return
	}
	fmt.Fprintln(e.stderr, "opened in your browser")
}

// redirectTTL is how long a redirect page is kept: the browser reads it
// at once; older ones are removed by the next `dvv viewer`.
const redirectTTL = 10 * time.Minute

// writeRedirect writes, in dir (this user's 0700 runtime directory), a
// page only this user can read that sends the browser to link.
func writeRedirect(dir, link string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if err := client.CheckDir(dir); err != nil {
		return "", err
	}
	old, _ := filepath.Glob(filepath.Join(dir, "viewer-*.html"))
	for _, p := range old {
		if fi, err := os.Stat(p); err == nil && time.Since(fi.ModTime()) > redirectTTL {
			os.Remove(p)
		}
	}
	f, err := os.CreateTemp(dir, "viewer-*.html") // mode 0600
	if err != nil {
		return "", err
	}
	h := html.EscapeString(link)
	_, err = fmt.Fprintf(f, `<!doctype html>
<html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0;url=%s">
<title>dvv viewer</title></head>
<body><p><a href="%s">Open the dvv viewer</a></p></body></html>
`, h, h)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// openerWait is how long an opener may run before it is taken for the
// browser itself (xdg-open runs some browsers in the foreground): one that
// fails does so within it.
const openerWait = 3 * time.Second

// openBrowser opens path with the desktop's opener and says why not when
// it could not: no desktop, no opener, or the opener failed.
func openBrowser(path string) error {
	var cmd *exec.Cmd
	switch {
	case runtime.GOOS == "darwin":
		cmd = exec.Command("open", path)
	case os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != "":
		if _, err := exec.LookPath("xdg-open"); err != nil {
			return fmt.Errorf("xdg-open is not installed")
		}
		cmd = exec.Command("xdg-open", path)
	default:
		return fmt.Errorf("no desktop here: neither DISPLAY nor WAYLAND_DISPLAY is set")
	}
	// No pipes: a browser the opener runs in the foreground outlives dvv,
	// and would die writing to a pipe nobody reads.
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("%s %s", cmd.Args[0], openerFailure(err))
		}
		return nil
	case <-time.After(openerWait):
		return nil // still running: the browser itself, started in the foreground
	}
}

// openerFailure words an opener's exit status (xdg-open's codes).
func openerFailure(err error) string {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return err.Error()
	}
	switch ee.ExitCode() {
	case 3:
		return "found no program to open it with (exit status 3)"
	case 4:
		return "failed to open it (exit status 4)"
	}
	return "failed: " + err.Error()
}
