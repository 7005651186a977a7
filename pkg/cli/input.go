package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// lastRead is what click sends without --generation: dvvd fences the
// coordinate with the generation of this session's last `dvv screen`.
const lastRead = "last-read"

type clickOptions struct {
	action     string
	toX, toY   int
	button     string
	direction  string
	clicks     int
	modifiers  []string
	generation uint64
	text       string // click the centre of this text's only match
	region     string // --text: only matches inside this area
	lang       string
	element    string // click the centre of this accessibility element
}

func clickCmd(e *env) *cobra.Command {
	var o clickOptions
	cmd := &cobra.Command{
		Use:   "click <limbId> <x> <y>",
		Short: "Send a pointer action at framebuffer pixel x,y (fenced by the geometry generation)",
		Long: "Send a pointer action at native framebuffer pixels. Without --generation the coordinate is fenced\n" +
			"with the generation of this shell's last `dvv screen` of the limb (generationFrom: last-read):\n" +
			"if the screen was resized since, nothing is sent and the answer is GEOMETRY_CHANGED (exit 5).\n" +
			"A session that never read the screen gets UNFENCED: run `dvv screen` first, or pass --generation.",
		Example: "  dvv click vnc-1a2b3c4d 100 200\n  dvv click vnc-1a2b3c4d 100 200 --action double\n" +
			"  dvv click vnc-1a2b3c4d 10 10 --action drag --to-x 300 --to-y 10\n" +
			"  dvv click vnc-1a2b3c4d 400 300 --action scroll --direction down --clicks 3\n" +
			"  dvv click vnc-1a2b3c4d --text OK\n  dvv click vnc-1a2b3c4d --element ID",
		Args: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("element") {
				return exactArgs(1, "click --element needs only the limb id")(cmd, args)
			}
			if cmd.Flags().Changed("text") {
				return exactArgs(1, "click --text needs only the limb id")(cmd, args)
			}
			return exactArgs(3, "click needs a limb id, x and y (or --text)")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("element") {
				req, err := o.request(cmd.Flags(), []string{args[0], "0", "0"})
				if err != nil {
					return err
				}
				if o.element == "" || cmd.Flags().Changed("generation") || cmd.Flags().Changed("text") {
					return usageErr("--element needs an element id from inspect and takes the generation from it (no --generation, no --text)")
				}
				el, err := e.locateElement(req.Target, o.element)
				if err != nil {
					return err
				}
				g := el.Generation
				req.X, req.Y, req.Generation, req.GenerationFrom = intp(el.Element.Center.X), intp(el.Element.Center.Y), &g, ""
				req.VerifyMs = e.verifyMs()
				resp, err := request(e, (*client.Client).Click, req)
				if err == nil && e.human() {
					e.printAct(resp.Dispatched, resp.Verification)
				}
				return err
			}
			if cmd.Flags().Changed("text") {
				req, err := o.request(cmd.Flags(), []string{args[0], "0", "0"})
				if err != nil {
					return err
				}
				if o.text == "" || cmd.Flags().Changed("generation") {
					return usageErr("--text needs non-empty text and takes the generation from what it read (no --generation)")
				}
				return e.clickText(req, o.text, o.region, o.lang)
			}
			if cmd.Flags().Changed("region") || cmd.Flags().Changed("lang") {
				return usageErr("--region and --lang are for --text only")
			}
			req, err := o.request(cmd.Flags(), args)
			if err != nil {
				return err
			}
			req.VerifyMs = e.verifyMs()
			resp, err := request(e, (*client.Client).Click, req)
			if err == nil && e.human() {
				e.printAct(resp.Dispatched, resp.Verification)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.action, "action", "click", orList(variants(wire.OpClick)))
	f.IntVar(&o.toX, "to-x", 0, "drag: where the button is released (x)")
	f.IntVar(&o.toY, "to-y", 0, "drag: where the button is released (y)")
	f.StringVar(&o.button, "button", "", "drag: "+orList(fieldValues(wire.OpClick, "button"))+" (default left)")
	f.StringVar(&o.direction, "direction", "", "scroll: "+orList(fieldValues(wire.OpClick, "direction")))
	f.IntVar(&o.clicks, "clicks", 1, "scroll: wheel clicks")
	f.StringSliceVar(&o.modifiers, "modifiers", nil, "keys held during the action, e.g. ctrl,shift")
	f.StringVar(&o.text, "text", "", "click the centre of this text (read with `dvv find`); refused unless it is on the screen exactly once")
	f.StringVar(&o.region, "region", "", "--text: only matches inside x,y,w,h")
	f.StringVar(&o.lang, "lang", "", "--text: recognition languages (default eng)")
	f.StringVar(&o.element, "element", "", "click the centre of this accessibility element (an id from `dvv inspect`), refused if the id is stale")
	f.Uint64Var(&o.generation, "generation", 0, "the geometry generation x,y were computed against (default: this shell's last screen read)")
	return cmd
}

// request builds a click request from its flags and arguments.
func (o *clickOptions) request(f *pflag.FlagSet, args []string) (wire.ClickArgs, error) {
	target, err := limbTarget(args[0])
	if err != nil {
		return wire.ClickArgs{}, err
	}
	req := wire.ClickArgs{Target: target}
	x, err := coordinate("x", args[1])
	if err != nil {
		return wire.ClickArgs{}, err
	}
	y, err := coordinate("y", args[2])
	if err != nil {
		return wire.ClickArgs{}, err
	}
	req.Action, req.X, req.Y = o.action, &x, &y
	if !opSpec(wire.OpClick).HasVariant(o.action) {
		return wire.ClickArgs{}, usageErr("--action must be %s, not %q", orList(variants(wire.OpClick)), o.action)
	}
	if err := checkClickFlags(f, o.action); err != nil {
		return wire.ClickArgs{}, err
	}
	switch o.action {
	case "drag":
		req.ToX, req.ToY, req.Button = intp(o.toX), intp(o.toY), o.button
	case "scroll":
		req.Direction, req.Clicks = o.direction, intp(o.clicks)
	}
	for _, m := range o.modifiers {
		if m = strings.TrimSpace(m); m != "" {
			req.Modifiers = append(req.Modifiers, m)
		}
	}
	// A click is always fenced: by the generation given, or else by the
	// one this shell's last screen read saw, so a resize since then
	// refuses the click instead of landing it somewhere else.
	if f.Changed("generation") {
		g := o.generation
		req.Generation = &g
	} else {
		req.GenerationFrom = lastRead
	}
	return req, nil
}

// clickFlags are click's flags for fields that apply to some actions only,
// with the field each one sets.
var clickFlags = []struct{ flag, field string }{
	{"to-x", "toX"}, {"to-y", "toY"}, {"button", "button"}, {"direction", "direction"}, {"clicks", "clicks"},
}

// checkClickFlags refuses what the op table says the action cannot do
// without (drag's toX and toY, scroll's direction) and a flag of another
// action — refused, not ignored: it shows the user meant something else
// than what would be sent.
func checkClickFlags(f *pflag.FlagSet, action string) error {
	var need []string
	missing := false
	for _, cf := range clickFlags {
		field := opField(wire.OpClick, cf.field)
		if !field.RequiredFor(action) {
			continue
		}
		need = append(need, "--"+cf.flag+valuesHint(field.Values))
		missing = missing || !f.Changed(cf.flag) || f.Lookup(cf.flag).Value.String() == ""
	}
	if missing {
		return usageErr("--action %s needs %s", action, strings.Join(need, " and "))
	}
	for _, cf := range clickFlags {
		if field := opField(wire.OpClick, cf.field); f.Changed(cf.flag) && !field.Applies(action) {
			return usageErr("--%s is for --action %s only", cf.flag, orList(field.Only))
		}
	}
	return nil
}

// valuesHint is " a|b|c" for a closed set, else nothing.
func valuesHint(values []string) string {
	if len(values) == 0 {
		return ""
	}
	return " " + pipeList(values)
}

func coordinate(name, s string) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, usageErr("%s %q is not a whole number of framebuffer pixels", name, s)
	}
	return v, nil
}

// verifyMs is the act's verifyMs: --verify when given, else dvvd's default.
func (e *env) verifyMs() *int {
	if e.verify.set {
		return e.verify.ms()
	}
	return nil
}

// printAct prints what an act (click, type, key, clipboard set,
// term_send) dispatched and what its answer saw of the effect.
func (e *env) printAct(dispatched string, v *wire.Verification) {
	fmt.Fprintln(e.stdout, dispatched)
	if v != nil && v.Status != wire.VerifyDispatched {
		fmt.Fprintln(e.stdout, v.Summary())
	}
}

// actVerification is what an act's answer line says was seen of its
// effect: nil for a failure, another op's line or an act that says nothing.
func actVerification(line *wire.Reply) *wire.Verification {
	ans, err := wire.AnswerOf(line)
	if err != nil {
		return nil
	}
	switch a := ans.(type) {
	case *wire.ClickAnswer:
		return a.Verification
	case *wire.TypeAnswer:
		return a.Verification
	case *wire.KeyAnswer:
		return a.Verification
	case *wire.ClipboardAnswer:
		return a.Verification
	case *wire.TermSendAnswer:
		return a.Verification
	}
	return nil
}

// readFirst is type's and key's --read: one screen read in this session
// before the act (what repainted since its last read; the whole screen the
// first time), which clears the typing fence as `dvv screen` does and is in
// history as a screen read. The picture is not kept: --read says "type into
// what is there now", so where it changed is said on stderr instead.
func (e *env) readFirst(target wire.Target) error {
	req := wire.ScreenArgs{Target: target, Form: "damage-crop"}
	ans, err := quiet(e, (*client.Client).Screen, req)
	if err != nil {
		if we, ok := err.(*wire.Error); ok && e.json {
			e.printJSON(wire.ErrorReply(nil, we))
		}
		return err
	}
	if s := ans.Screen; s != nil && e.human() && s.Mime != "text/plain" {
		if s.Unchanged {
			fmt.Fprintf(e.stderr, "read the screen first: nothing repainted since the last read (generation %d)\n", s.Generation)
		} else {
			g := s.ImageSpace.Region
			fmt.Fprintf(e.stderr, "read the screen first: %dx%d+%d+%d of %dx%d (generation %d)\n", g.W, g.H, g.X, g.Y, s.ImageSpace.Native.W, s.ImageSpace.Native.H, s.Generation)
		}
	}
	return nil
}

// readFlagHelp is --read's help, shared by type and key.
const readFlagHelp = "read the screen first (as `dvv screen` does, recorded in history), so a repaint since the last read does not refuse the act"

func typeCmd(e *env) *cobra.Command {
	var wpm int
	var read bool
	cmd := &cobra.Command{
		Use:   "type <limbId> <text>",
		Short: "Type text into whatever has focus (a desktop needs a fresh `dvv screen` first, or --read)",
		Long: "Type text into whatever has focus. On a desktop limb this is refused with SCREEN_CHANGED (exit 5)\n" +
			"until this shell has read the screen since the last large repaint (the typing fence: a dialog may\n" +
			"have taken focus). --read reads the screen first, in this session, and then types: the honest way\n" +
			"to say \"read, then type\" after an act of your own repainted (a key Return that scrolled a\n" +
			"terminal), without a picture to look at. \"-\" reads the text from stdin.",
		Args: exactArgs(2, "type needs a limb id and the text"),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := limbTarget(args[0])
			if err != nil {
				return err
			}
			req := wire.TypeArgs{Target: target}
			text, err := e.textArg(args[1])
			if err != nil {
				return err
			}
			req.Text = &text
			if cmd.Flags().Changed("wpm") {
				req.Wpm = intp(wpm)
			}
			req.VerifyMs = e.verifyMs()
			if read {
				if err := e.readFirst(target); err != nil {
					return err
				}
			}
			resp, err := request(e, (*client.Client).Type, req)
			if err == nil && e.human() {
				e.printAct(resp.Dispatched, resp.Verification)
			}
			return err
		},
	}
	cmd.Flags().IntVar(&wpm, "wpm", 0, "throttle to this many words (5 characters) a minute")
	cmd.Flags().BoolVar(&read, "read", false, readFlagHelp)
	return cmd
}

// textArg is the argument itself, or stdin when it is "-".
func (e *env) textArg(s string) (string, error) {
	if s != "-" {
		return s, nil
	}
	b, err := io.ReadAll(io.LimitReader(e.stdin, 16<<20))
	if err != nil {
		return "", localErr(wire.BadRequest, "read stdin: %v", err)
	}
	return string(b), nil
}

func keyCmd(e *env) *cobra.Command {
	var read bool
	cmd := &cobra.Command{
		Use:     "key <limbId> <keys>",
		Short:   "Press one named key or a chord joined with + (fenced like type; --read reads the screen first)",
		Example: "  dvv key vnc-1a2b3c4d Enter\n  dvv key vnc-1a2b3c4d super+r\n  dvv key vnc-1a2b3c4d ctrl+alt+Delete",
		Args:    exactArgs(2, "key needs a limb id and a key name or chord"),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := limbTarget(args[0])
			if err != nil {
				return err
			}
			req := wire.KeyArgs{Target: target}
			req.Keys = args[1]
			req.VerifyMs = e.verifyMs()
			if read {
				if err := e.readFirst(target); err != nil {
					return err
				}
			}
			resp, err := request(e, (*client.Client).Key, req)
			if err == nil && e.human() {
				e.printAct(resp.Dispatched, resp.Verification)
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&read, "read", false, readFlagHelp)
	return cmd
}

func clipboardCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "clipboard",
		Short: "Read or write the remote clipboard",
	}
	asGroup(cmd)
	get := &cobra.Command{
		Use:   "get <limbId>",
		Short: "Print the remote clipboard's text (needs clipboard.read)",
		Args:  exactArgs(1, "clipboard get needs a limb id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := limbTarget(args[0])
			if err != nil {
				return err
			}
			req := wire.ClipboardArgs{Target: target}
			req.Action = "get"
			resp, err := request(e, (*client.Client).Clipboard, req)
			if err != nil || !e.human() {
				return err
			}
			if resp.Clip == nil || !resp.Clip.Present {
				fmt.Fprintln(e.stderr, "the remote clipboard is empty (or nothing was copied since the limb connected)")
				return nil
			}
			// Byte for byte into a pipe or file (as xclip -o); escaped on
			// a terminal, where the remote side's escape sequences would act.
			out := e.dataOut()
			if isTerminal(out) {
				out = e.stdout
			}
			io.WriteString(out, resp.Clip.Text)
			if !strings.HasSuffix(resp.Clip.Text, "\n") {
				fmt.Fprintln(out)
			}
			return nil
		},
	}
	set := &cobra.Command{
		Use:   "set <limbId> [text]",
		Short: "Put text on the remote clipboard (from stdin when text is omitted or \"-\")",
		Args:  rangeArgs(1, 2, "clipboard set needs a limb id and optionally the text"),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := limbTarget(args[0])
			if err != nil {
				return err
			}
			req := wire.ClipboardArgs{Target: target}
			src := "-"
			if len(args) == 2 {
				src = args[1]
			}
			text, err := e.textArg(src)
			if err != nil {
				return err
			}
			req.Action, req.Text = "set", &text
			resp, err := request(e, (*client.Client).Clipboard, req) // clipboard takes no verifyMs: its answer says what the server acknowledged
			if err == nil && e.human() {
				e.printAct(resp.Dispatched, resp.Verification)
			}
			return err
		},
	}
	cmd.AddCommand(get, set)
	return cmd
}
