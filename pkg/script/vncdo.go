package script

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dvvhq/dvv/pkg/keys"
)

// vncdoArity is how many words follow each vncdotool verb on its command
// line (vncdo -s host move 100 100 click 1 …): how Chain cuts a command
// line into steps.
var vncdoArity = map[string]int{
	"key": 1, "type": 1, "move": 2, "mousemove": 2, "drag": 2, "click": 1,
	"mousedown": 1, "mouseup": 1, "keydown": 1, "keyup": 1, "capture": 1,
	"rcapture": 5, "expect": 2, "rexpect": 6, "pause": 1, "sleep": 1,
}

// vncdoOnly are vncdotool's verbs dvv has no command of that name for: a
// script line starting with one is always vncdotool's.
var vncdoOnly = map[string]bool{
	"move": true, "mousemove": true, "drag": true, "mousedown": true, "mouseup": true,
	"keydown": true, "keyup": true, "capture": true, "rcapture": true, "rexpect": true, "pause": true,
}

// vncdoKeys are vncdotool's key names dvv spells otherwise.
var vncdoKeys = map[string]string{
	"bsp": "BackSpace", "ins": "Insert", "pgup": "PageUp", "pgdn": "PageDown",
	"slash": "/", "bslash": "\\", "spacebar": "space", "sp": "space", "minus": "-", "equal": "=",
	"lalt": "alt", "ralt": "alt", "lctrl": "ctrl", "rctrl": "ctrl", "lshift": "shift", "rshift": "shift",
	"lmeta": "meta", "rmeta": "meta", "lsuper": "super", "rsuper": "super", "fn": "super",
}

// Translator turns vncdotool's verbs into dvv steps. vncdotool acts where
// the pointer is (move, then click 1); dvv's click names its point, so the
// translator follows the pointer through the script: a press and release
// (mousedown, move or drag, mouseup) becomes one dvv drag, keys held with
// keydown are added to the chords and clicks until keyup.
type Translator struct {
	x, y    int
	pointer bool // x, y are known (a move came first)
	// down is the button held since mousedown (0: none), pressed at dx, dy.
	down   int
	dx, dy int
	held   []string // keys held with keydown, as dvv names them
}

// Step translates s when it is one of vncdotool's verbs with vncdotool's
// arguments, and passes it on unchanged otherwise.
func (t *Translator) Step(s Step) ([]Step, error) {
	verb := s.Args[0]
	if !t.isVncdo(s.Args) {
		return t.passOn(s)
	}
	if want := vncdoArity[verb]; len(s.Args)-1 != want {
		return nil, errAt(s.Line, "vncdotool's %s takes %d argument(s), not %d", verb, want, len(s.Args)-1)
	}
	translate, ok := vncdoVerbs[verb]
	if !ok {
		return nil, errAt(s.Line, "vncdotool's %s is not supported (docs/scripts.md lists what is)", verb)
	}
	return translate(t, s)
}

// isVncdo tells whether a line is vncdotool's: a verb only vncdotool has,
// or one dvv has too written with vncdotool's arguments.
func (t *Translator) isVncdo(a []string) bool {
	if vncdoOnly[a[0]] {
		return true
	}
	shape, ok := vncdoShapes[a[0]]
	return ok && shape(t, a)
}

// vncdoShapes tell a line of a verb both dvv and vncdotool have (click,
// expect, key, sleep) as vncdotool's by its arguments.
var vncdoShapes = map[string]func(t *Translator, a []string) bool{
	"click":  func(_ *Translator, a []string) bool { return len(a) == 2 && isInt(a[1]) },
	"expect": func(_ *Translator, a []string) bool { return len(a) == 3 && isNumber(a[2]) },
	"sleep":  func(_ *Translator, a []string) bool { return len(a) == 2 && isNumber(a[1]) },
	// A key name only vncdotool spells (bsp, ctrl-alt-del), or any key
	// while keys are held with keydown.
	"key": func(t *Translator, a []string) bool {
		return len(a) == 2 && ((!validChord(a[1]) && validChord(vncdoChord(a[1]))) || len(t.held) > 0)
	},
}

// passOn is a line of dvv's own, refused while a button is held: dvv's
// click, key and type would act in the middle of vncdotool's press.
func (t *Translator) passOn(s Step) ([]Step, error) {
	if verb := s.Args[0]; t.down != 0 && (verb == "click" || verb == "key" || verb == "type") {
		return nil, errAt(s.Line, "button %d is still down (mousedown): end the press with mouseup %d first", t.down, t.down)
	}
	return []Step{s}, nil
}

// vncdoVerbs translate each of vncdotool's verbs, its arity checked.
var vncdoVerbs = map[string]func(t *Translator, s Step) ([]Step, error){
	"move": (*Translator).move, "mousemove": (*Translator).move, "drag": (*Translator).move,
	"click": (*Translator).click, "mousedown": (*Translator).mousedown, "mouseup": (*Translator).mouseup,
	"keydown": (*Translator).keydown, "keyup": (*Translator).keyup, "key": (*Translator).key,
	"capture": (*Translator).capture, "rcapture": (*Translator).rcapture,
	"expect": (*Translator).expect, "rexpect": (*Translator).rexpect,
	"pause": (*Translator).pause, "sleep": (*Translator).pause,
}

// translated is the one dvv step a vncdotool step becomes.
func translated(s Step, args ...string) ([]Step, error) {
	return []Step{{Line: s.Line, Text: s.Text, Args: args, Vncdo: s.Args[0]}}, nil
}

// move follows the pointer; while a button is down the drag is sent whole
// at mouseup.
func (t *Translator) move(s Step) ([]Step, error) {
	x, y, err := point(s.Line, s.Args[1], s.Args[2])
	if err != nil {
		return nil, err
	}
	t.x, t.y, t.pointer = x, y, true
	if t.down != 0 {
		return nil, nil
	}
	return translated(s, "click", s.Args[1], s.Args[2], "--action", "move")
}

func (t *Translator) click(s Step) ([]Step, error) {
	if err := t.needPointer(s.Line, s.Args[0]); err != nil {
		return nil, err
	}
	return translated(s, t.clickArgs(s.Line, s.Args[1])...)
}

// mousedown holds a button where the pointer is, until mouseup.
func (t *Translator) mousedown(s Step) ([]Step, error) {
	if err := t.needPointer(s.Line, s.Args[0]); err != nil {
		return nil, err
	}
	b, err := button(s.Line, s.Args[1])
	if err != nil {
		return nil, err
	}
	if b > 3 {
		return nil, errAt(s.Line, "mousedown %d: only buttons 1, 2 and 3 can be held (4 and 5 are the wheel: click 4, click 5)", b)
	}
	t.down, t.dx, t.dy = b, t.x, t.y
	return nil, nil
}

// mouseup ends the press: a click where the pointer did not move, a drag
// from where it was pressed to where it is otherwise.
func (t *Translator) mouseup(s Step) ([]Step, error) {
	b, err := button(s.Line, s.Args[1])
	if err != nil {
		return nil, err
	}
	if t.down == 0 || b != t.down {
		return nil, errAt(s.Line, "mouseup %d without mousedown %d before it", b, b)
	}
	t.down = 0
	if t.dx == t.x && t.dy == t.y {
		return translated(s, t.clickArgs(s.Line, s.Args[1])...)
	}
	args := []string{"click", strconv.Itoa(t.dx), strconv.Itoa(t.dy), "--action", "drag",
		"--to-x", strconv.Itoa(t.x), "--to-y", strconv.Itoa(t.y), "--button", buttonName[b]}
	return translated(s, t.withHeld(args)...)
}

func (t *Translator) keydown(s Step) ([]Step, error) {
	t.held = append(t.held, vncdoChord(s.Args[1]))
	return nil, nil
}

func (t *Translator) keyup(s Step) ([]Step, error) {
	k := vncdoChord(s.Args[1])
	for i, h := range t.held {
		if h == k {
			t.held = append(t.held[:i], t.held[i+1:]...)
			return nil, nil
		}
	}
	return nil, errAt(s.Line, "keyup %s without keydown %s before it", s.Args[1], s.Args[1])
}

// key presses a chord, the keys held with keydown added to it.
func (t *Translator) key(s Step) ([]Step, error) {
	chord := vncdoChord(s.Args[1])
	if len(t.held) > 0 {
		chord = strings.Join(t.held, "+") + "+" + chord
	}
	if !validChord(chord) {
		return nil, errAt(s.Line, "key %s: not a key name dvv or vncdotool knows (docs/keys.md lists them)", s.Args[1])
	}
	return translated(s, "key", chord)
}

func (*Translator) capture(s Step) ([]Step, error) {
	return translated(s, "screen", "--out", s.Args[1])
}

func (*Translator) rcapture(s Step) ([]Step, error) {
	r, err := region(s.Line, s.Args[2:6])
	if err != nil {
		return nil, err
	}
	return translated(s, "screen", "--region", r, "--out", s.Args[1])
}

// expect drops vncdotool's fuzz: FUZZ measures a histogram's distance,
// dvv's similarity is its own (docs/scripts.md), and its default applies.
func (*Translator) expect(s Step) ([]Step, error) {
	return translated(s, "expect", s.Args[1])
}

func (*Translator) rexpect(s Step) ([]Step, error) {
	r, err := region(s.Line, s.Args[2:6])
	if err != nil {
		return nil, err
	}
	return translated(s, "expect", s.Args[1], "--region", r)
}

// pause is pause or sleep, in seconds.
func (*Translator) pause(s Step) ([]Step, error) {
	f, err := strconv.ParseFloat(s.Args[1], 64)
	if err != nil || f < 0 || f > 3600 {
		return nil, errAt(s.Line, "%s %s: seconds from 0 to 3600", s.Args[0], s.Args[1])
	}
	return translated(s, "sleep", strconv.FormatFloat(f, 'f', -1, 64)+"s")
}

// End checks the script leaves no button or key held.
func (t *Translator) End() error {
	if t.down != 0 {
		return &Error{Msg: fmt.Sprintf("the script ends with button %d down: add mouseup %d", t.down, t.down)}
	}
	if len(t.held) > 0 {
		return &Error{Msg: fmt.Sprintf("the script ends with %s held: add keyup", strings.Join(t.held, ", "))}
	}
	return nil
}

var buttonName = map[int]string{1: "left", 2: "middle", 3: "right"}

// clickArgs is vncdotool's click N at the pointer, as a dvv click.
func (t *Translator) clickArgs(line int, n string) []string {
	b, _ := strconv.Atoi(n)
	args := []string{"click", strconv.Itoa(t.x), strconv.Itoa(t.y)}
	switch b {
	case 2:
		args = append(args, "--action", "middle")
	case 3:
		args = append(args, "--action", "right")
	case 4:
		args = append(args, "--action", "scroll", "--direction", "up")
	case 5:
		args = append(args, "--action", "scroll", "--direction", "down")
	}
	return t.withHeld(args)
}

func (t *Translator) withHeld(args []string) []string {
	if len(t.held) > 0 {
		args = append(args, "--modifiers", strings.Join(t.held, ","))
	}
	return args
}

func (t *Translator) needPointer(line int, verb string) error {
	if !t.pointer {
		return errAt(line, "vncdotool's %s acts where the pointer is, and no move came before it: add move X Y first", verb)
	}
	return nil
}

func button(line int, s string) (int, error) {
	b, err := strconv.Atoi(s)
	if err != nil || b < 1 || b > 5 {
		return 0, errAt(line, "button %q: 1 (left), 2 (middle), 3 (right), 4 or 5 (the wheel)", s)
	}
	return b, nil
}

func point(line int, xs, ys string) (int, int, error) {
	x, errX := strconv.Atoi(xs)
	y, errY := strconv.Atoi(ys)
	if errX != nil || errY != nil || x < 0 || y < 0 {
		return 0, 0, errAt(line, "%s %s is not a point in whole framebuffer pixels", xs, ys)
	}
	return x, y, nil
}

func region(line int, a []string) (string, error) {
	for _, w := range a {
		if !isInt(w) {
			return "", errAt(line, "%s is not a region x y w h in whole pixels", strings.Join(a, " "))
		}
	}
	return strings.Join(a, ","), nil
}

// vncdoChord is a vncdotool key (ctrl-alt-del, enter, bsp) as a dvv chord
// (ctrl+alt+del, enter, BackSpace). A lone "-" is the minus key.
func vncdoChord(k string) string {
	if k == "-" {
		return k
	}
	var parts []string
	if strings.Contains(k, "-") && !strings.Contains(k, "+") {
		parts = strings.Split(k, "-")
	} else {
		parts = []string{k}
	}
	for i, p := range parts {
		if n, ok := vncdoKeys[strings.ToLower(p)]; ok {
			parts[i] = n
		} else if p == "" {
			parts[i] = "-"
		}
	}
	return strings.Join(parts, "+")
}

func validChord(c string) bool {
	_, err := keys.ParseChord(c)
	return err == nil
}

func isInt(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// Chain reads a vncdotool command line (the words after vncdo's options:
// type hi key enter) as steps, each verb taking the words its arity says.
// Each step is numbered by its place in the chain.
func Chain(words []string) ([]Step, error) {
	tr := &Translator{}
	steps, err := tr.chain(0, words)
	if err != nil {
		return nil, err
	}
	if err := tr.End(); err != nil {
		return nil, err
	}
	return steps, nil
}

// ParseVncdo reads a file of vncdotool command lines: every line a chain
// of verbs (move 100 100 click 1), '#' comments and ${name} as in Parse.
func ParseVncdo(src string, vars map[string]string) ([]Step, error) {
	tr := &Translator{}
	var steps []Step
	for i, line := range strings.Split(src, "\n") {
		if len(line) > MaxLine {
			return nil, errAt(i+1, "the line is longer than %d bytes", MaxLine)
		}
		words, err := Split(strings.TrimSuffix(line, "\r"), vars)
		if err != nil {
			return nil, errAt(i+1, "%v", err)
		}
		out, err := tr.chain(i+1, words)
		if err != nil {
			return nil, err
		}
		if steps = append(steps, out...); len(steps) > MaxSteps {
			return nil, errAt(i+1, "more than %d steps", MaxSteps)
		}
	}
	if err := tr.End(); err != nil {
		return nil, err
	}
	return steps, nil
}

// chain translates one command line's verbs; line 0 numbers the steps by
// their place instead.
func (t *Translator) chain(line int, words []string) ([]Step, error) {
	var steps []Step
	for i, k := 0, 0; i < len(words); k++ {
		n := line
		if line == 0 {
			n = k + 1
		}
		verb := words[i]
		arity, ok := vncdoArity[verb]
		if !ok {
			if strings.HasPrefix(verb, "-") {
				return nil, errAt(n, "vncdotool's option %s: give the limb with --limb (docs/scripts.md maps vncdo's options)", verb)
			}
			return nil, errAt(n, "%q is not a vncdotool verb (docs/scripts.md lists them)", verb)
		}
		if i+1+arity > len(words) {
			return nil, errAt(n, "vncdotool's %s takes %d argument(s)", verb, arity)
		}
		args := words[i : i+1+arity]
		// In a chain every verb is vncdotool's, click N and key names too.
		out, err := t.force(Step{Line: n, Text: quoteWords(args), Args: append([]string{}, args...)})
		if err != nil {
			return nil, err
		}
		steps = append(steps, out...)
		i += 1 + arity
	}
	return steps, nil
}

// force translates s as vncdotool's verb whatever its words look like.
func (t *Translator) force(s Step) ([]Step, error) {
	switch s.Args[0] {
	case "type":
		return []Step{{Line: s.Line, Text: s.Text, Args: s.Args, Vncdo: "type"}}, nil
	case "click":
		if !isInt(s.Args[1]) {
			return nil, errAt(s.Line, "click %s: vncdotool's click takes a button number", s.Args[1])
		}
	case "expect":
		if !isNumber(s.Args[2]) {
			return nil, errAt(s.Line, "expect %s %s: vncdotool's expect takes a file and a fuzz number", s.Args[1], s.Args[2])
		}
	case "sleep":
		if !isNumber(s.Args[1]) {
			return nil, errAt(s.Line, "sleep %s: seconds", s.Args[1])
		}
	case "key":
		if !validChord(vncdoChord(s.Args[1])) && len(t.held) == 0 {
			return nil, errAt(s.Line, "key %s: not a key name dvv or vncdotool knows (docs/keys.md lists them)", s.Args[1])
		}
		steps, err := t.Step(Step{Line: s.Line, Text: s.Text, Args: []string{"key", s.Args[1]}})
		if err == nil && len(steps) == 1 && steps[0].Vncdo == "" {
			steps[0].Vncdo = "key"
		}
		return steps, err
	}
	return t.Step(s)
}

// quoteWords writes words back as one line a script could hold.
func quoteWords(words []string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(Quote(w))
	}
	return b.String()
}

// Quote writes one word so Split reads it back unchanged.
func Quote(w string) string {
	if w != "" && !strings.ContainsAny(w, " \t\"'\\$#\n\r") {
		return w
	}
	if !strings.ContainsAny(w, "'\n\r") {
		return "'" + w + "'"
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`)
	return `"` + r.Replace(w) + `"`
}
