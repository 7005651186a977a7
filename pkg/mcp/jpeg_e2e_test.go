package mcp

import (
	"context"
	"encoding/base64"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// screenRead is one way an agent reads a screen: the arguments of
// dvv_screen (and of the screen op).
type screenRead struct {
	name   string
	scale  float64 // 0: dvvmcp's image budget decides
	region *wire.Region
}

var screenReads = []screenRead{
	{name: "full (image budget: scale 0.5)"},
	{name: "full, scale 1", scale: 1},
	{name: "region 640x400", region: &wire.Region{X: 40, Y: 40, W: 640, H: 400}},
}

// imageOf is the image block of a dvv_screen result.
func imageOf(t *testing.T, res *sdk.CallToolResult) *sdk.ImageContent {
	t.Helper()
	for _, c := range res.Content {
		if img, ok := c.(*sdk.ImageContent); ok {
			return img
		}
	}
	t.Fatalf("no image block: %s", texts(res))
	return nil
}

// formatSizes reads each screenRead through a dvvmcp with the JPEG option
// and through dvvd as PNG and as JPEG, on a frame that is complete and
// unchanged for the three. It answers per read: PNG bytes, JPEG bytes, the
// JPEG option's bytes and its mime type.
type formatSizes struct {
	png, jpeg, option int
	optionMime        string
}

func measureFormats(t *testing.T, vnc *testbed.VNC, d *realDvvd) map[string]formatSizes {
	t.Helper()
	_, cs := connectBridge(t, Options{Socket: d.Socket, JPEG: true}, "jpeg-agent")
	limbID := openXvncLimb(t, vnc, cs)
	c, err := client.Dial(context.Background(), d.Socket, client.Options{Name: "png-reader"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	out := map[string]formatSizes{}
	for _, r := range screenReads {
		args := func(format string) wire.ScreenArgs {
			a := wire.ScreenArgs{Target: wire.Target{LimbID: limbID}, Format: format, Form: "full"}
			if r.scale != 0 {
				a.Scale = &r.scale
			} else {
				// What dvvmcp's default budget asks for a full read.
				me, mp := DefaultImageBudget.MaxEdge, DefaultImageBudget.MaxPixels
				a.MaxEdge, a.MaxPixels = &me, &mp
			}
			if r.region != nil {
				a.Form, a.Region, a.Scale, a.MaxEdge, a.MaxPixels = "region", r.region, nil, nil, nil
			}
			return a
		}
		bytesOf := func(format string) int {
			ans, err := c.Screen(ctx, args(format))
			if err != nil {
				t.Fatalf("%s as %s: %v", r.name, format, err)
			}
			b, err := base64.StdEncoding.DecodeString(ans.Screen.DataBase64)
			if err != nil {
				t.Fatal(err)
			}
			return len(b)
		}
		var s formatSizes
		// The three reads must see one picture: read until the desktop has
		// held still across them (a clock or cursor blink would skew one).
		testbed.Eventually(t, 30*time.Second, r.name+" on an unchanged frame", func() bool {
			st, err := c.Status(ctx, wire.StatusArgs{Target: wire.Target{LimbID: limbID}})
			if err != nil || st.Observation.Coverage < 1 {
				return false
			}
			start := time.Now()
			s.png = bytesOf("png")
			s.jpeg = bytesOf("jpeg")
			a := map[string]any{"limbId": limbID}
			if r.region != nil {
				a["form"], a["region"] = "region", r.region
			} else if r.scale != 0 {
				a["scale"] = r.scale
			}
			res := call(t, cs, "dvv_screen", a)
			if res.IsError {
				t.Fatalf("dvv_screen %s: %s", r.name, texts(res))
			}
			img := imageOf(t, res)
			s.option, s.optionMime = len(img.Data), img.MIMEType
			// Unchanged if the latest change came before the first read.
			st, err = c.Status(ctx, wire.StatusArgs{Target: wire.Target{LimbID: limbID}})
			return err == nil && st.Observation.LastChangeMs > time.Since(start).Milliseconds()
		})
		out[r.name] = s
		t.Logf("%-32s PNG %8d B  JPEG %8d B (%.2f× PNG)  --jpeg option: %s %d B", r.name, s.png, s.jpeg, float64(s.jpeg)/float64(s.png), s.optionMime, s.option)
	}
	return out
}

// TestJPEGOptionNeverLargerThanPNGOnText: on a desktop of xterms full of
// text, JPEG alone is larger than PNG; dvvmcp's JPEG option answers each
// read in PNG there, never with more bytes than PNG.
func TestJPEGOptionNeverLargerThanPNGOnText(t *testing.T) {
	vnc := testbed.StartXvnc(t, testbed.XvncOptions{Width: 1920, Height: 1080})
	vnc.Run(t, "xsetroot", "-solid", "#3a6ea5")
	for i, geo := range []string{"100x40+0+0", "100x40+960+0", "100x30+0+560", "100x30+960+560"} {
		vnc.Background(t, "xterm", "-geometry", geo, "-e", "sh", "-c", []string{"ls -l /usr/bin | head -60", "ps aux | head -60", "env | sort; ls /etc", "cat /etc/services | head -60"}[i]+"; sleep 600")
	}
	d := startDvvd(t)
	sizes := measureFormats(t, vnc, d)
	for name, s := range sizes {
		if s.option > s.png {
			t.Errorf("%s: the JPEG option answered %d bytes (%s), PNG is %d", name, s.option, s.optionMime, s.png)
		}
	}
}

// TestJPEGOptionPicksJPEGForAPhotograph: on a desktop showing a
// photograph, the JPEG option answers JPEG, and fewer bytes than PNG.
func TestJPEGOptionPicksJPEGForAPhotograph(t *testing.T) {
	testbed.Need(t, "convert", "display")
	vnc := testbed.StartXvnc(t, testbed.XvncOptions{Width: 1920, Height: 1080})
	photo := filepath.Join(t.TempDir(), "photo.png")
	if out, err := exec.Command("convert", "-size", "1920x1080", "plasma:fractal", "-blur", "0x1", photo).CombinedOutput(); err != nil {
		t.Fatalf("convert: %v %s", err, out)
	}
	vnc.Background(t, "display", "-geometry", "+0+0", "-borderwidth", "0", photo)
	// The X server shows the photograph (display takes its time): the
	// middle of the screen holds many colours, not the root's one.
	testbed.Eventually(t, 60*time.Second, "the photograph on the X screen", func() bool {
		img := vnc.Capture(t)
		colours := map[[3]uint8]bool{}
		for y := 500; y < 580; y++ {
			for x := 920; x < 1000; x++ {
				o := img.PixOffset(x, y)
				colours[[3]uint8{img.Pix[o], img.Pix[o+1], img.Pix[o+2]}] = true
			}
		}
		return len(colours) > 500
	})
	d := startDvvd(t)
	sizes := measureFormats(t, vnc, d)
	for name, s := range sizes {
		if s.optionMime != "image/jpeg" || s.option >= s.png {
			t.Errorf("%s: the JPEG option answered %s, %d bytes; PNG is %d", name, s.optionMime, s.option, s.png)
		}
	}
}
