package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

func findCmd(e *env) *cobra.Command {
	var region, lang string
	cmd := &cobra.Command{
		Use:   "find <limbId> <text>",
		Short: "Find text on a desktop: each place it is read, with box, confidence and generation",
		Long: "Recognise the desktop's text (only what changed since the last read is read again) and print\n" +
			"every place <text> occurs within one line: case and spacing are ignored. Boxes are native\n" +
			"framebuffer pixels; pass the generation to `dvv click --generation` so the click is fenced.\n" +
			"Exit status 0 when the text is there; " + strconv.Itoa(ExitNotOnScreen) + " when it is not (so `if dvv find …` works).\n" +
			"Needs Tesseract on dvvd's machine; without it the answer is UNSUPPORTED (exit 9).",
		Example: "  dvv find vnc-1a2b3c4d \"Save as\"\n  dvv find vnc-1a2b3c4d OK --region 300,200,400,200 --lang eng+deu",
		Args:    exactArgs(2, "find needs a limb id and the text to look for"),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := findRequest(args[0], args[1], region, lang)
			if err != nil {
				return err
			}
			resp, err := request(e, (*client.Client).Find, req)
			if err != nil || resp.Find == nil {
				return err
			}
			if len(resp.Find.Matches) == 0 {
				// --json printed dvvd's answer as is; the status still says "missed".
				return &exitStatus{code: ExitNotOnScreen, msg: fmt.Sprintf("%q is not on the screen (generation %d)", args[1], resp.Find.Generation)}
			}
			if !e.human() {
				return nil
			}
			for _, m := range resp.Find.Matches {
				fmt.Fprintln(e.stdout, matchLine(m))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&region, "region", "", "x,y,w,h: only matches inside this area")
	cmd.Flags().StringVar(&lang, "lang", "", "recognition languages, e.g. eng or eng+deu (default eng)")
	return cmd
}

func findRequest(limb, text, region, lang string) (wire.FindArgs, error) {
	target, err := limbTarget(limb)
	if err != nil {
		return wire.FindArgs{}, err
	}
	return findArgs(target, text, region, lang)
}

// findArgs reads text (all text when empty) on target's screen, in region
// when given.
func findArgs(target wire.Target, text, region, lang string) (wire.FindArgs, error) {
	var err error
	req := wire.FindArgs{Target: target}
	if text != "" {
		req.Text = &text
	}
	req.Lang = lang
	if region != "" {
		if req.Region, err = parseRegion(region); err != nil {
			return wire.FindArgs{}, err
		}
	}
	return req, nil
}

// matchLine is one match for people: where to click, what was read.
func matchLine(m wire.TextMatch) string {
	return fmt.Sprintf("%d,%d  box %d,%d,%d,%d  confidence %.2f  generation %d  %s  %q",
		m.Center.X, m.Center.Y, m.Box.X, m.Box.Y, m.Box.W, m.Box.H, m.Confidence, m.Generation, m.Match, m.Text)
}

// clickText finds text and clicks the centre of its only match, fenced
// with the generation it was read at. No match, or more than one, sends
// nothing.
func (e *env) clickText(req wire.ClickArgs, text, region, lang string) error {
	find, err := findArgs(req.Target, text, region, lang)
	if err != nil {
		return err
	}
	resp, err := quiet(e, (*client.Client).Find, find)
	if err != nil {
		if e.json {
			if we, ok := err.(*wire.Error); ok {
				e.printJSON(wire.ErrorReply(nil, we))
			}
		}
		return err
	}
	var ms []wire.TextMatch
	if resp.Find != nil {
		ms = resp.Find.Matches
	}
	var fail error
	switch len(ms) {
	case 1:
		m := ms[0]
		g := m.Generation
		req.X, req.Y, req.Generation, req.GenerationFrom = intp(m.Center.X), intp(m.Center.Y), &g, ""
		req.VerifyMs = e.verifyMs()
		resp, err := request(e, (*client.Client).Click, req)
		if err == nil && e.human() {
			e.printAct(resp.Dispatched, resp.Verification)
		}
		return err
	case 0:
		fail = &wire.Error{Code: wire.NotFound, Message: fmt.Sprintf("%q is not on the screen; nothing was clicked", text),
			Next: "check with `dvv screen --text`, or wait for it: `dvv wait --until text --text ...`"}
	default:
		lines := make([]string, len(ms))
		for i, m := range ms {
			lines[i] = "  " + matchLine(m)
		}
		fail = &wire.Error{Code: wire.BadRequest, Message: fmt.Sprintf("%q is on the screen %d times; nothing was clicked. Candidates:\n%s", text, len(ms), strings.Join(lines, "\n")),
			Next: "narrow it with --region x,y,w,h or longer text, or click one centre with `dvv click <limb> X Y --generation G`"}
	}
	if e.json {
		e.printJSON(wire.ErrorReply(nil, fail.(*wire.Error)))
	}
	return fail
}

// printLines prints the recognised lines of `dvv screen --text`.
func (e *env) printLines(f *wire.FindResult) {
	if f == nil {
		return
	}
	for _, l := range f.Lines {
		fmt.Fprintf(e.stdout, "%4d,%-4d %s\n", l.Box.X, l.Box.Y, oneLine(l.Text))
	}
	fmt.Fprintln(e.stderr, f.ImageSpaceLine)
}
