package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// xtermWindow is where the X server says the window titled title is.
func xtermWindow(t *testing.T, vnc *testbed.VNC, title string) image.Rectangle {
	t.Helper()
	var r image.Rectangle
	testbed.Eventually(t, 10*time.Second, "window "+title, func() bool {
		out, err := vnc.Command("xdotool", "search", "--onlyvisible", "--name", title, "getwindowgeometry", "--shell", "%@").Output()
		if err != nil {
			return false
		}
		v := map[string]int{}
		for _, line := range strings.Split(string(out), "\n") {
			k, s, _ := strings.Cut(strings.TrimSpace(line), "=")
			v[k], _ = strconv.Atoi(s)
		}
		r = image.Rect(v["X"], v["Y"], v["X"]+v["WIDTH"], v["Y"]+v["HEIGHT"])
		return !r.Empty()
	})
	return r
}

// inkIn reports whether the X server's own picture has dark pixels (the
// xterm's black glyphs on white) inside r.
func inkIn(img *image.RGBA, r image.Rectangle) bool {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := img.RGBAAt(x, y)
			if int(c.R)+int(c.G)+int(c.B) < 3*96 {
				return true
			}
		}
	}
	return false
}

// TestTypeScriptClientToolSets drives dvvmcp with the official TypeScript
// SDK (test/mcp-js/sets.mjs) against a real dvvd and Xvnc: without
// --tools the list is the reference's and dvv_find is unknown (-32602);
// with --tools text, dvv_find reads a word an xterm drew at the box the X
// server puts it in, and dvv_click_text moves the X server's pointer to
// that box, fenced with the generation the word was read on.
func TestTypeScriptClientToolSets(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "node", "npm", "tesseract", "xterm", "xdotool")
	dir, err := filepath.Abs("../../test/mcp-js")
	if err != nil {
		t.Fatal(err)
	}
	npmCI(t, dir)
	vnc := testbed.StartXvnc(t, testbed.XvncOptions{})
	// One line in a 40-column xterm at a known place: the word is columns
	// 6..14 of its first row.
	const cols, rows, line, word, col = 40, 4, "alpha Quarterly omega", "Quarterly", 6
	vnc.Background(t, "xterm", "-geometry", fmt.Sprintf("%dx%d+40+60", cols, rows), "-title", "setsword", "-e", "sh", "-c", "echo "+line+"; exec sleep 600")
	vnc.WaitStill(t, "XTerm")
	win := xtermWindow(t, vnc, "setsword")
	// xterm's text area is the window less its 2-pixel inner border.
	cellW, cellH := (win.Dx()-4)/cols, (win.Dy()-4)/rows
	drawn := image.Rect(win.Min.X+2+col*cellW, win.Min.Y+2, win.Min.X+2+(col+len(word))*cellW, win.Min.Y+2+cellH)
	shot := vnc.Capture(t)
	if !inkIn(shot, drawn) {
		t.Fatalf("the X server shows no glyphs where the word should be (%v); the xterm is at %v", drawn, win)
	}

	d := startDvvd(t)
	node := exec.Command("node", "sets.mjs", binary(t, "dvvmcp"), "--socket", d.Socket)
	node.Env = append(os.Environ(), fmt.Sprintf("DVV_TEST_VNC_PORT=%d", vnc.Port), "DVV_TEST_WORD="+word)
	node.Dir = dir
	var stderr bytes.Buffer
	node.Stderr = &stderr
	out, err := node.Output()
	if err != nil {
		t.Fatalf("node sets.mjs: %v\n%s\n%s", err, out, stderr.Bytes())
	}
	type answer struct {
		IsError    bool
		Text       string
		Structured json.RawMessage
	}
	var got struct {
		DefaultTools, TextTools []string
		DefaultFind, TextExpect struct {
			Code    any
			Message string
		}
		Wait struct {
			IsError bool
			Text    string
		}
		Find, Missing, Click answer
		AllTools             []string
		Expect               struct {
			Region     struct{ X, Y, W, H int }
			IsError    bool
			Text       string
			Structured json.RawMessage
		}
		Record  struct{ Start, Stop, List json.RawMessage }
		History json.RawMessage
		Report  struct {
			IsError bool
			Text    string
		}
		Error     string
		Invalid   []any
		Validated []string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("sets.mjs output %q: %v", out, err)
	}
	if got.Error != "" {
		t.Fatal(got.Error)
	}

	// Default: exactly the reference's tools; a set's tool is unknown.
	var ref []string
	for _, tool := range Tools {
		ref = append(ref, tool.Name)
	}
	// The server lists its tools by name.
	slices.Sort(ref)
	slices.Sort(got.DefaultTools)
	slices.Sort(got.TextTools)
	if !slices.Equal(got.DefaultTools, ref) {
		t.Errorf("tools without --tools: %v", got.DefaultTools)
	}
	if got.DefaultFind.Code != float64(-32602) || !strings.Contains(got.DefaultFind.Message, "--tools text") {
		t.Errorf("dvv_find without --tools: %+v, drawn -32602 naming --tools text", got.DefaultFind)
	}
	// --tools text: the reference's and the text set's; the image set's is unknown.
	withText := append(slices.Clone(ref), "dvv_find", "dvv_click_text")
	slices.Sort(withText)
	if !slices.Equal(got.TextTools, withText) {
		t.Errorf("tools with --tools text: %v", got.TextTools)
	}
	if got.TextExpect.Code != float64(-32602) || !strings.Contains(got.TextExpect.Message, "--tools image") {
		t.Errorf("dvv_expect with --tools text: %+v, drawn -32602 naming --tools image", got.TextExpect)
	}
	if got.Wait.IsError || !strings.Contains(got.Wait.Text, "settled") {
		t.Fatalf("wait until the word is shown: %+v", got.Wait)
	}

	// The word's box is where the X server drew it, fenced by a generation.
	var find struct {
		Find struct {
			Matches []struct {
				Text       string
				Box        struct{ X, Y, W, H int }
				Center     struct{ X, Y int }
				Generation uint64
			}
			Generation uint64
		}
		Observation struct{ Coverage float64 }
	}
	if got.Find.IsError || json.Unmarshal(got.Find.Structured, &find) != nil || len(find.Find.Matches) != 1 {
		t.Fatalf("dvv_find %s: %s", word, got.Find.Text)
	}
	m := find.Find.Matches[0]
	box := image.Rect(m.Box.X, m.Box.Y, m.Box.X+m.Box.W, m.Box.Y+m.Box.H)
	// Within a glyph cell of the word's cells, on its row.
	slack := drawn.Inset(-cellW)
	if !strings.EqualFold(m.Text, word) || !box.In(slack) || box.Dx() < drawn.Dx()/2 || !inkIn(shot, box) {
		t.Errorf("dvv_find: %q at %v; the X server drew %q at %v (xterm at %v)", m.Text, box, word, drawn, win)
	}
	if m.Generation == 0 || m.Generation != find.Find.Generation {
		t.Errorf("the match carries generation %d, the read %d", m.Generation, find.Find.Generation)
	}
	// The answer states how much of the framebuffer was received: all of it.
	if find.Observation.Coverage != 1 {
		t.Errorf("dvv_find's coverage: %v, want 1", find.Observation.Coverage)
	}

	// Not on the screen: NOT_FOUND, nothing clicked.
	if !got.Missing.IsError || !strings.HasPrefix(got.Missing.Text, "NOT_FOUND: ") || !strings.Contains(got.Missing.Text, "nothing was clicked") {
		t.Errorf("dvv_click_text of absent text: %+v", got.Missing)
	}

	// The click lands on the word: the X server's pointer is at its centre.
	if got.Click.IsError || !strings.Contains(got.Click.Text, fmt.Sprintf("generation %d", m.Generation)) {
		t.Fatalf("dvv_click_text %s: %s", word, got.Click.Text)
	}
	testbed.Eventually(t, 10*time.Second, "the pointer on the word", func() bool {
		x, y := vnc.MouseLocation(t)
		return image.Pt(x, y).In(drawn.Inset(-2)) && x == m.Center.X && y == m.Center.Y
	})
	// --tools all: every set's tool is listed.
	all, _ := ParseSets(SetAll)
	if len(got.AllTools) != len(Served(all)) {
		t.Errorf("tools with --tools all: %v", got.AllTools)
	}
	// dvv_expect finds the word's picture where it was cut, on a generation.
	var exp struct {
		Expect struct {
			Found      bool
			Box        struct{ X, Y, W, H int }
			Generation uint64
		}
	}
	if got.Expect.IsError || json.Unmarshal(got.Expect.Structured, &exp) != nil || !exp.Expect.Found || exp.Expect.Generation == 0 {
		t.Errorf("dvv_expect of the word's picture: %s", got.Expect.Text)
	} else if b, r := exp.Expect.Box, got.Expect.Region; b.X != r.X || b.Y != r.Y || b.W != r.W || b.H != r.H {
		t.Errorf("dvv_expect found the picture at %+v; it was cut at %+v", b, r)
	}
	// dvv_record wrote a recording that is on disk, and list names it;
	// dvv_history lists the ops this loop sent.
	var rec struct {
		Recordings []struct {
			Path   string
			Active bool
		}
	}
	if json.Unmarshal(got.Record.Stop, &rec) != nil || len(rec.Recordings) == 0 || rec.Recordings[0].Path == "" {
		t.Errorf("dvv_record stop: %s", got.Record.Stop)
	} else if st, err := os.Stat(rec.Recordings[0].Path); err != nil || st.Size() == 0 {
		t.Errorf("the recording %s on disk: %v", rec.Recordings[0].Path, err)
	} else if !strings.Contains(string(got.Record.List), rec.Recordings[0].Path) {
		t.Errorf("dvv_record list does not name %s: %s", rec.Recordings[0].Path, got.Record.List)
	}
	var hist struct{ History []struct{ Op string } }
	json.Unmarshal(got.History, &hist)
	var ops []string
	for _, h := range hist.History {
		ops = append(ops, h.Op)
	}
	if !slices.Contains(ops, "find") || !slices.Contains(ops, "expect") || !slices.Contains(ops, "record") {
		t.Errorf("dvv_history: %v", ops)
	}
	if got.Report.IsError || !strings.Contains(got.Report.Text, "dvv_report") {
		t.Errorf("dvv_report: %+v", got.Report)
	}
	if len(got.Invalid) > 0 {
		t.Errorf("outputSchema problems seen by Ajv (strict): %v", got.Invalid)
	}
	t.Logf("read %q at %v (drawn at %v); %s; validated: %v", m.Text, box, drawn, got.Click.Text, got.Validated)
}

// TestClickTextReadsBeforeItClicks: dvv_click_text reads the screen on
// every call, as `dvv click --text` does, so a word that moved is clicked
// where it is now, and after the geometry changed the click is fenced with
// the new generation; an ambiguous text is refused and nothing is clicked.
func TestClickTextReadsBeforeItClicks(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "tesseract", "xterm", "xdotool", "xrandr")
	vnc := testbed.StartXvnc(t, testbed.XvncOptions{Width: 1024, Height: 768})
	vnc.Background(t, "xterm", "-geometry", "40x4+40+60", "-title", "movingword", "-e", "sh", "-c", "echo Reconciled ledger; exec sleep 600")
	vnc.WaitStill(t, "XTerm")
	d := startDvvd(t)
	_, cs := connectBridge(t, Options{Socket: d.Socket, Sets: []string{"text"}}, "click-text-agent")
	limbID := openXvncLimb(t, vnc, cs)
	if res := call(t, cs, "dvv_control", map[string]any{"limbId": limbID, "action": "acquire"}); res.IsError {
		t.Fatalf("acquire: %s", texts(res))
	}
	clickAt := func(where string) (image.Point, string) {
		t.Helper()
		var res = call(t, cs, "dvv_wait", map[string]any{"limbId": limbID, "until": "text", "text": "Reconciled", "timeoutMs": 20000})
		if res.IsError {
			t.Fatalf("%s: wait for the word: %s", where, texts(res))
		}
		res = call(t, cs, "dvv_click_text", map[string]any{"limbId": limbID, "text": "Reconciled", "action": "move"})
		if res.IsError {
			t.Fatalf("%s: dvv_click_text: %s", where, texts(res))
		}
		var p image.Point
		testbed.Eventually(t, 10*time.Second, "the pointer to move", func() bool {
			p.X, p.Y = vnc.MouseLocation(t)
			return strings.Contains(texts(res), fmt.Sprintf("centre %d,%d", p.X, p.Y))
		})
		return p, texts(res)
	}
	first, _ := clickAt("first")
	if win := xtermWindow(t, vnc, "movingword"); !first.In(win) {
		t.Fatalf("first click at %v, the xterm is at %v", first, win)
	}

	// The window moves: the next call reads again and follows it.
	vnc.Run(t, "xdotool", "search", "--onlyvisible", "--name", "movingword", "windowmove", "500", "400")
	var win image.Rectangle
	testbed.Eventually(t, 10*time.Second, "the xterm to move", func() bool {
		win = xtermWindow(t, vnc, "movingword")
		return win.Min == image.Pt(500, 400)
	})
	vnc.WaitStill(t, "XTerm")
	moved, _ := clickAt("moved")
	if !moved.In(win) {
		t.Fatalf("after the move the click went to %v, the xterm is at %v", moved, win)
	}

	// The geometry changes: the click is fenced with the new generation.
	vnc.Resize(t, 800, 600)
	testbed.Eventually(t, 10*time.Second, "the limb to see the new size", func() bool {
		st := call(t, cs, "dvv_status", map[string]any{"limbId": limbID})
		obs, _ := structuredOf(t, st)["observation"].(map[string]any)
		g, _ := obs["geometry"].(map[string]any)
		return g["width"] == float64(800) && g["generation"] == float64(2)
	})
	_, note := clickAt("resized")
	if !strings.Contains(note, "on generation 2") {
		t.Errorf("after the resize the click was not fenced with generation 2: %s", note)
	}

	// Twice on the screen: refused with the candidates; the pointer stays.
	vnc.Background(t, "xterm", "-geometry", "40x4+40+200", "-title", "secondword", "-e", "sh", "-c", "echo Reconciled twice; exec sleep 600")
	xtermWindow(t, vnc, "secondword")
	vnc.WaitStill(t, "XTerm")
	before := image.Pt(vnc.MouseLocation(t))
	testbed.Eventually(t, 20*time.Second, "both words read", func() bool {
		f := call(t, cs, "dvv_find", map[string]any{"limbId": limbID, "text": "Reconciled"})
		fr, _ := structuredOf(t, f)["find"].(map[string]any)
		ms, _ := fr["matches"].([]any)
		return len(ms) == 2
	})
	res := call(t, cs, "dvv_click_text", map[string]any{"limbId": limbID, "text": "Reconciled"})
	if code := errorCode(t, res); code != "BAD_REQUEST" || !strings.Contains(texts(res), "2 times") || !strings.Contains(texts(res), "nothing was clicked") {
		t.Errorf("ambiguous text: %s %s", code, texts(res))
	}
	if after := image.Pt(vnc.MouseLocation(t)); after != before {
		t.Errorf("a refused click moved the pointer from %v to %v", before, after)
	}
}

// TestSetToolsKeepTheTokensCapabilities: turning a set on shows tools, it
// grants nothing. An observer token (screen.read, no control, no
// daemon.admin) through --tools all reads text on a real desktop, but
// dvv_click_text's click and dvv_report are POLICY_DENIED, and the X
// server's pointer does not move; dvv_script runs no step (POLICY_DENIED)
// and writes nothing on the bridge's machine.
func TestSetToolsKeepTheTokensCapabilities(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "tesseract", "xterm", "xdotool")
	vnc := testbed.StartXvnc(t, testbed.XvncOptions{})
	vnc.Background(t, "xterm", "-geometry", "40x4+40+60", "-title", "observed", "-e", "sh", "-c", "echo Observed ledger; exec sleep 600")
	vnc.WaitStill(t, "XTerm")
	d := startDvvd(t)
	admin, err := client.Dial(context.Background(), d.Socket, client.Options{Name: "owner"})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	tok, err := admin.TokenCreate(context.Background(), wire.TokenCreateArgs{Role: "observer"})
	if err != nil {
		t.Fatal(err)
	}
	port := vnc.Port
	perceive := true
	open, err := admin.Open(context.Background(), wire.OpenArgs{Address: "127.0.0.1", Port: &port, Protocol: "vnc", Perceive: &perceive})
	if err != nil {
		t.Fatal(err)
	}
	all, _ := ParseSets(SetAll)
	_, cs := connectBridge(t, Options{Socket: d.Socket, Token: tok.Token, Sets: all}, "observer-agent")
	limb := open.LimbID
	if w := call(t, cs, "dvv_wait", map[string]any{"limbId": limb, "until": "connected", "timeoutMs": 20000}); w.IsError {
		t.Fatalf("wait connected as an observer: %s", texts(w))
	}
	if w := call(t, cs, "dvv_wait", map[string]any{"limbId": limb, "until": "text", "text": "Observed ledger", "timeoutMs": 20000}); w.IsError {
		t.Fatalf("wait for the text as an observer: %s", texts(w))
	}
	if f := call(t, cs, "dvv_find", map[string]any{"limbId": limb, "text": "ledger"}); f.IsError {
		t.Fatalf("dvv_find as an observer: %s", texts(f))
	}
	before := image.Pt(vnc.MouseLocation(t))
	if code := errorCode(t, call(t, cs, "dvv_click_text", map[string]any{"limbId": limb, "text": "ledger"})); code != string(wire.PolicyDenied) {
		t.Errorf("dvv_click_text as an observer: %s, want POLICY_DENIED", code)
	}
	if code := errorCode(t, call(t, cs, "dvv_report", map[string]any{})); code != string(wire.PolicyDenied) {
		t.Errorf("dvv_report as an observer: %s, want POLICY_DENIED", code)
	}
	if after := image.Pt(vnc.MouseLocation(t)); after != before {
		t.Errorf("a denied click moved the pointer from %v to %v", before, after)
	}
	// A script's steps write files on the bridge's machine (screen --out),
	// which the token's policy does not see: a bridge with a token runs none.
	shot := filepath.Join(t.TempDir(), "shot.png")
	if code := errorCode(t, call(t, cs, "dvv_script", map[string]any{"limbId": limb, "steps": []string{"screen --out " + shot}})); code != string(wire.PolicyDenied) {
		t.Errorf("dvv_script as an observer: %s, want POLICY_DENIED", code)
	}
	if _, err := os.Stat(shot); err == nil {
		t.Errorf("an observer's script wrote %s", shot)
	}
}
