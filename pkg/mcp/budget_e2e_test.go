package mcp

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dvvhq/dvv/internal/testbed"
)

// clientResize is what an MCP client that resizes large images (Claude's:
// long edge over 1568 px or over about 1.15 megapixels) does to a w×h
// picture before the model sees it: the factor it scales by (1 = none).
func clientResize(w, h int) float64 {
	f := 1.0
	if long := math.Max(float64(w), float64(h)); long > 1568 {
		f = 1568 / long
	}
	if px := float64(w) * float64(h) * f * f; px > 1_150_000 {
		f *= math.Sqrt(1_150_000 / px)
	}
	return f
}

// budgetRun is one screen read through the bridge and one click placed the
// way a model would place it: at a target read off the picture as the
// client delivered it, mapped back with the imageSpace scale.
type budgetRun struct {
	imgW, imgH int
	pngBytes   int
	scale      float64 // imageSpace scale dvvd stated
	resize     float64 // the client's own resize
	errPx      float64 // distance between target and where the X pointer landed
}

func measureBudget(t *testing.T, vnc *testbed.VNC, socket string, budget ImageBudget, w, h int) budgetRun {
	t.Helper()
	_, cs := connectBridge(t, Options{Socket: socket, Image: budget}, "budget-agent")
	limbID := openXvncLimb(t, vnc, cs)
	defer call(t, cs, "dvv_close", map[string]any{"limbId": limbID})
	call(t, cs, "dvv_control", map[string]any{"limbId": limbID, "action": "acquire"})
	call(t, cs, "dvv_wait", map[string]any{"limbId": limbID, "until": "screen-stable", "quietMs": 500, "timeoutMs": 20000})
	var scr *sdk.CallToolResult
	testbed.Eventually(t, 20*time.Second, "a complete screen", func() bool {
		scr = call(t, cs, "dvv_screen", map[string]any{"limbId": limbID})
		sc, _ := structuredOf(t, scr)["screen"].(map[string]any)
		cov, _ := sc["coverage"].(float64)
		return !scr.IsError && cov >= 1
	})
	img, _ := scr.Content[0].(*sdk.ImageContent)
	if img == nil {
		t.Fatalf("no image: %s", texts(scr))
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := structuredOf(t, scr)["screen"].(map[string]any)
	space, _ := sc["imageSpace"].(map[string]any)
	scale, _ := space["scale"].(float64)
	gen, _ := sc["generation"].(float64)
	run := budgetRun{imgW: cfg.Width, imgH: cfg.Height, pngBytes: len(img.Data), scale: scale, resize: clientResize(cfg.Width, cfg.Height)}
	// The target: a point near the far corner, where drift is largest.
	tx, ty := 0.9*float64(w), 0.85*float64(h)
	seenX := math.Round(tx * scale * run.resize) // what the model reads off its picture
	seenY := math.Round(ty * scale * run.resize)
	x, y := int(math.Round(seenX/scale)), int(math.Round(seenY/scale)) // imageSpace: native = image / scale
	x, y = min(x, w-1), min(y, h-1)
	if res := call(t, cs, "dvv_click", map[string]any{"limbId": limbID, "action": "move", "x": x, "y": y, "generation": gen}); res.IsError {
		t.Fatalf("move: %s", texts(res))
	}
	var px, py int
	testbed.Eventually(t, 10*time.Second, "the pointer to move", func() bool {
		px, py = vnc.MouseLocation(t)
		return px == x && py == y
	})
	run.errPx = math.Hypot(float64(px)-tx, float64(py)-ty)
	return run
}

// TestImageBudgetKeepsClicksOnTarget: on a 1920x1080 desktop a screen read
// without scale comes at scale 0.5 (960x540), within what MCP clients take
// unresized, so a point read off the picture lands within a pixel or two of
// its target on the X server; without the budget the client's resize
// (0.8167) sends it hundreds of pixels off.
func TestImageBudgetKeepsClicksOnTarget(t *testing.T) {
	t.Parallel()
	vnc := testbed.StartXvnc(t, testbed.XvncOptions{Width: 1920, Height: 1080})
	d := startDvvd(t)
	got := measureBudget(t, vnc, d.Socket, ImageBudget{}, 1920, 1080)
	if got.imgW != 960 || got.imgH != 540 || got.scale != 0.5 || got.resize != 1 {
		t.Fatalf("default budget: %+v", got)
	}
	if got.errPx > 2 {
		t.Fatalf("the click landed %.1f px from its target", got.errPx)
	}
	full := measureBudget(t, vnc, d.Socket, NoImageBudget, 1920, 1080)
	if full.imgW != 1920 || full.scale != 1 || full.errPx < 100 {
		t.Fatalf("without a budget the drift the budget prevents should show: %+v", full)
	}
}

// TestImageBudgetSweep measures picture size and click error over desktop
// sizes with and without the budget (DVV_BENCH_IMAGE=1; figures in
// docs/benchmarks.md).
func TestImageBudgetSweep(t *testing.T) {
	if os.Getenv("DVV_BENCH_IMAGE") == "" {
		t.Skip("set DVV_BENCH_IMAGE=1 to measure (a benchmark, not a check)")
	}
	var b strings.Builder
	b.WriteString("| desktop | default budget: image | PNG | click error | no budget: image | PNG | client resize | click error |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, sz := range [][2]int{{1024, 768}, {1366, 768}, {1440, 900}, {1920, 1080}, {2560, 1440}, {3840, 2160}} {
		w, h := sz[0], sz[1]
		vnc := testbed.StartXvnc(t, testbed.XvncOptions{Width: w, Height: h})
		vnc.Background(t, "xterm", "-geometry", "400x200+0+0", "-e", "sh", "-c", "ls -l /usr/bin /usr/lib; exec sleep 600")
		d := startDvvd(t)
		vnc.Run(t, "xdotool", "search", "--sync", "--class", "XTerm") // the xterm is mapped before the first read
		a := measureBudget(t, vnc, d.Socket, ImageBudget{}, w, h)
		n := measureBudget(t, vnc, d.Socket, NoImageBudget, w, h)
		fmt.Fprintf(&b, "| %dx%d | %dx%d (scale %g) | %d KiB | %.1f px | %dx%d | %d KiB | %.4f | %.1f px |\n", w, h,
			a.imgW, a.imgH, a.scale, a.pngBytes>>10, a.errPx, n.imgW, n.imgH, n.pngBytes>>10, n.resize, n.errPx)
		d.kill(t)
	}
	t.Log("\n" + b.String())
}
