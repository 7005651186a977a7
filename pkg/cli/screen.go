package cli

import (
	"encoding/base64"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

const defaultScreenOut = "./dvv-screen.png"

type screenOptions struct {
	scale  float64
	out    string
	form   string
	region string
	jpeg   bool
	text   bool
	lang   string
	// windows asks for the window layout beside the picture
	windows bool
}

func screenCmd(e *env) *cobra.Command {
	var o screenOptions
	cmd := &cobra.Command{
		Use:   "screen <limbId>",
		Short: "Read the screen: write a desktop's image to --out, print a terminal's text grid",
		Long: "Read what the limb shows now. For a desktop limb dvv receives the image and writes it to --out\n" +
			"itself, replacing the file only once it is whole (default ./dvv-screen.png, or .jpg with --jpeg),\n" +
			"then prints the path and the imageSpace line that maps picture pixels back to framebuffer\n" +
			"pixels. --out - writes the image to stdout instead. dvvd never writes into your directory.\n" +
			"This read clears the typing fence and records the generation `dvv click` fences with.\n" +
			"For a terminal limb the text grid is printed.",
		Example: "  dvv screen vnc-1a2b3c4d --scale 0.5 --out ./dvv-screen.png\n" +
			"  dvv screen vnc-1a2b3c4d --region 0,0,400,300\n  dvv screen vnc-1a2b3c4d --form damage-crop",
		Args: exactArgs(1, "screen needs a limb id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.text {
				// The recognised lines instead of pixels (a find without text).
				req, err := findRequest(args[0], "", o.region, o.lang)
				if err != nil {
					return err
				}
				resp, err := request(e, (*client.Client).Find, req)
				if err == nil && e.human() {
					e.printLines(resp.Find)
				}
				return err
			}
			req, err := o.request(cmd.Flags(), args[0])
			if err != nil {
				return err
			}
			resp, err := request(e, (*client.Client).Screen, req)
			if err != nil || !e.human() {
				return err
			}
			return e.printScreen(resp.Screen)
		},
	}
	f := cmd.Flags()
	f.Float64Var(&o.scale, "scale", 1, "scale the whole frame by (0, 1]")
	f.StringVar(&o.out, "out", defaultScreenOut, "where dvv writes the image (- for stdout)")
	f.StringVar(&o.form, "form", "", orList(variants(wire.OpScreen))+" (default full, or region with --region)")
	f.StringVar(&o.region, "region", "", "x,y,w,h in framebuffer pixels (form region)")
	f.BoolVar(&o.jpeg, "jpeg", false, "JPEG instead of PNG")
	f.BoolVar(&o.text, "text", false, "desktop: print the recognised lines (of --region) instead of an image")
	f.StringVar(&o.lang, "lang", "", "--text: recognition languages (default eng)")
	f.BoolVar(&o.windows, "windows", false, "desktop: also list the windows in the picture (over the SSH sidecar), in framebuffer and image pixels")
	return cmd
}

// request builds the screen read. Only flags the user set are sent, so
// dvvd's defaults (and their documentation) stay the one source; the path
// is made absolute here because dvvd's working directory is not the
// shell's.
func (o *screenOptions) request(f *pflag.FlagSet, arg string) (wire.ScreenArgs, error) {
	target, err := limbTarget(arg)
	if err != nil {
		return wire.ScreenArgs{}, err
	}
	req := wire.ScreenArgs{Target: target}
	req.Form = o.form
	if o.region != "" {
		r, err := parseRegion(o.region)
		if err != nil {
			return wire.ScreenArgs{}, err
		}
		req.Region = r
		if req.Form == "" {
			req.Form = "region"
		}
	}
	if f.Changed("scale") {
		s := o.scale
		req.Scale = &s
	}
	if o.jpeg {
		req.Format = "jpeg"
	}
	req.Windows = o.windows
	out := o.out
	if !f.Changed("out") && o.jpeg { // the default name follows the format; a named file is kept as given
		out = strings.TrimSuffix(out, ".png") + ".jpg"
	}
	if out != "-" {
		abs, err := filepath.Abs(out)
		if err != nil {
			return wire.ScreenArgs{}, localErr(wire.BadRequest, "cannot make %q absolute: %v", out, err)
		}
		req.Out = abs
	}
	return req, nil
}

// parseRegion reads x,y,w,h.
func parseRegion(s string) (*wire.Region, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return nil, usageErr("--region wants x,y,w,h (four numbers), not %q", s)
	}
	var v [4]int
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return nil, usageErr("--region %q: %q is not a whole number", s, p)
		}
		v[i] = n
	}
	if v[2] <= 0 || v[3] <= 0 {
		return nil, usageErr("--region %q: width and height must be positive", s)
	}
	return &wire.Region{X: v[0], Y: v[1], W: v[2], H: v[3]}, nil
}

// printScreen prints what a read gave for people: a terminal's rows, or the
// written file's path with the imageSpace line. An image sent to stdout
// (--out -) keeps stdout for the bytes, so its imageSpace line goes to
// stderr.
func (e *env) printScreen(s *wire.Screen) error {
	if s == nil {
		return nil
	}
	switch {
	case s.Mime == "text/plain" || s.Text != nil:
		// Trailing blanks are the grid's padding, not output: trimmed so the
		// rows paste and diff cleanly.
		rows := append([]string(nil), s.Text...)
		for i := range rows {
			rows[i] = strings.TrimRight(rows[i], " ")
		}
		for len(rows) > 0 && rows[len(rows)-1] == "" {
			rows = rows[:len(rows)-1]
		}
		for _, r := range rows {
			fmt.Fprintln(e.stdout, r)
		}
		if s.ImageSpaceLine != "" {
			fmt.Fprintln(e.stderr, s.ImageSpaceLine)
		}
	case s.Unchanged:
		fmt.Fprintln(e.stdout, s.ImageSpaceLine)
	case s.Path != "":
		fmt.Fprintln(e.stdout, s.Path)
		fmt.Fprintln(e.stdout, s.ImageSpaceLine)
	default:
		data, err := base64.StdEncoding.DecodeString(s.DataBase64)
		if err != nil {
			return localErr(wire.Internal, "dvvd sent an image that is not base64: %v", err)
		}
		e.dataOut().Write(data)
		fmt.Fprintln(e.stderr, s.ImageSpaceLine)
	}
	e.printScreenWindows(s)
	return nil
}

// printScreenWindows lists screen --windows' layout on stderr (stdout may
// hold the image): bottom to top, frame in framebuffer and image pixels.
func (e *env) printScreenWindows(s *wire.Screen) {
	if s.WindowsAbsent != "" {
		fmt.Fprintf(e.stderr, "windows: none read: %s\n", s.WindowsAbsent)
	}
	for _, w := range s.Windows {
		img := "not in the picture"
		if w.Visible {
			img = "image " + region(w.Image)
		}
		focus := ""
		if w.Focused {
			focus = " (focused)"
		}
		fmt.Fprintf(e.stderr, "window %s %q%s: frame %s, %s\n", w.ID, oneLine(w.Title), focus, region(w.Frame), img)
	}
}

func waitCmd(e *env) *cobra.Command {
	var until, text, lang, window string
	var quiet, timeout duration
	var el elementSearch
	cmd := &cobra.Command{
		Use:   "wait <limbId> --until CONDITION",
		Short: "Block until the limb is connected, the screen settles or changes, text appears…",
		Long: "Block in dvvd until the condition holds or --timeout passes (at most 25s: a longer --timeout is\n" +
			"clamped, and the answer says so; run wait again to wait longer).\n" +
			"Exit status 0 when it settled; " + strconv.Itoa(ExitNotSettled) + " when the deadline passed first (dvvd answers that as an\n" +
			"ordinary success with settled: false, which --json shows as is).",
		Example: "  dvv wait vnc-1a2b3c4d --until connected\n  dvv wait vnc-1a2b3c4d --until screen-stable --quiet 500ms\n" +
			"  dvv wait ssh-5e6f7a8b --until text --text '$ '\n  dvv wait vnc-1a2b3c4d --until text-gone --text 'Saving'\n" +
			"  dvv wait vnc-1a2b3c4d --until window --window 'Save as'\n" +
			"  dvv wait vnc-1a2b3c4d --until element --window Settings --role 'push button' --name Apply\n" +
			"  dvv wait vnc-1a2b3c4d --until text-equals --element ID --text 'Done'",
		Args: exactArgs(1, "wait needs a limb id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := limbTarget(args[0])
			if err != nil {
				return err
			}
			req := wire.WaitArgs{Target: target}
			if until == "" {
				return usageErr("wait needs --until %s", pipeList(variants(wire.OpWait)))
			}
			req.Until, req.Lang, req.Window = until, lang, window
			req.Role, req.NameContains, req.States, req.Element = el.role, el.name, el.states, el.element
			if cmd.Flags().Changed("text") {
				req.Text = &text
			}
			if quiet.set {
				req.QuietMs = quiet.ms()
			}
			if timeout.set {
				req.TimeoutMs = timeout.ms()
			}
			resp, err := request(e, (*client.Client).Wait, req)
			if err != nil {
				return err
			}
			w := resp.Wait
			if w == nil {
				return nil
			}
			if e.human() {
				if w.Settled {
					fmt.Fprintf(e.stdout, "settled after %d ms: %s\n", w.ElapsedMs, oneLine(w.Detail))
				}
				if w.ExitCode != nil {
					fmt.Fprintf(e.stdout, "exit status: %d\n", *w.ExitCode)
				}
				for _, m := range w.Matches {
					fmt.Fprintln(e.stdout, matchLine(m))
				}
				for _, el := range w.Elements {
					fmt.Fprintln(e.stdout, elementLine(el))
				}
			}
			if !w.Settled {
				return &exitStatus{code: ExitNotSettled, msg: fmt.Sprintf("not settled: until %s did not hold within %d ms (%s)", w.Until, w.ElapsedMs, w.Detail)}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&until, "until", "", orList(variants(wire.OpWait)))
	f.StringVar(&text, "text", "", "the text for --until text and text-gone (a terminal's grid, or a desktop's recognised text)")
	f.StringVar(&lang, "lang", "", "desktop text: recognition languages (default eng)")
	f.StringVar(&window, "window", "", "the window for --until window, window-gone and window-active: an id (0x…) or a part of its title; for element and element-gone the window to search (every one on the screen when absent)")
	el.flags(f)
	addDuration(f, &quiet, "quiet", 750*time.Millisecond, "how long the screen must stay unchanged for screen-stable and idle")
	addDuration(f, &timeout, "timeout", 8*time.Second, "give up after this long (at most 25s; longer is clamped)")
	return cmd
}
