package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/draw"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/daemon"
	"github.com/dvvhq/dvv/pkg/policy"
	"github.com/dvvhq/dvv/pkg/wire"
)

// A typed client with InlineFiles writes the image a screen read names
// itself: dvvd sends it inline, so a token without local.files (which
// dvvd asks of a request naming a path on its machine) still gets the
// file, and the picture on disk is the X server's own. KeepLine gives the
// line a script is shown: the answer naming the file, as dvvd's own would.
func TestTypedClientWritesTheScreenItself(t *testing.T) {
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 240})
	v.Display.Run(t, "xsetroot", "-solid", "#3366cc")
	ts, err := policy.OpenTokenStore(filepath.Join(t.TempDir(), "tokens.json"))
	if err != nil {
		t.Fatal(err)
	}
	d := startDaemonWith(t, daemon.Services{Tokens: ts}, io.Discard)
	owner := dial(t, d, "owner")
	id := openVNC(t, owner, "127.0.0.1", v.Port)
	tok := must(t, owner, wire.TokenCreateArgs{Role: policy.RoleOperator}).Token

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out := filepath.Join(t.TempDir(), "shot.png")
	read := wire.ScreenArgs{Target: wire.Target{LimbID: id}, Out: out}

	// Without InlineFiles the path goes to dvvd, and this token may not
	// have dvvd write there: the control that the bytes below moved inline.
	named, err := client.Dial(ctx, d.SocketPath(), client.Options{Name: "named", Token: tok})
	if err != nil {
		t.Fatal(err)
	}
	defer named.Close()
	if _, err := named.Screen(ctx, read); client.Code(err) != wire.PolicyDenied {
		t.Fatalf("a path named to dvvd without local.files: %v, want POLICY_DENIED", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("%s exists after the refused read (%v)", out, err)
	}

	c, err := client.Dial(ctx, d.SocketPath(), client.Options{Name: "inline", Token: tok, InlineFiles: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var line *wire.Reply
	ans, err := c.With(client.KeepLine(&line)).Screen(ctx, read)
	if err != nil {
		t.Fatalf("screen with InlineFiles: %v", err)
	}
	if ans.Screen == nil || ans.Screen.Path != out || ans.Screen.DataBase64 != "" {
		t.Fatalf("answer %+v, want the image at %s and no inline data", ans.Screen, out)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s is not a PNG: %v", out, err)
	}
	got := image.NewRGBA(img.Bounds())
	draw.Draw(got, got.Bounds(), img, img.Bounds().Min, draw.Src)
	want := v.Display.Capture(t)
	if got.Bounds() != want.Bounds() || diffPixels(got, want, 8) > 0 {
		t.Fatalf("%s (%v) differs from the X server's root window (%v) in %d pixels", out, got.Bounds(), want.Bounds(), diffPixels(got, want, 8))
	}

	if line == nil {
		t.Fatal("KeepLine kept no line")
	}
	var shown wire.ScreenAnswer
	if err := json.Unmarshal(line.Line, &shown); err != nil || line.Result != wire.OpScreen || shown.Screen == nil ||
		shown.Screen.Path != out || shown.Screen.DataBase64 != "" || bytes.Contains(line.Line, []byte("dataBase64")) {
		t.Fatalf("kept line %s (%v), want the answer naming %s", line.Line, err, out)
	}

	// A failure's line is kept too, as dvvd wrote it.
	line = nil
	if _, err := c.With(client.KeepLine(&line)).Screen(ctx, wire.ScreenArgs{Target: wire.Target{LimbID: "vnc-nope"}, Out: out}); client.Code(err) != wire.LimbGone {
		t.Fatalf("screen of no limb: %v", err)
	}
	if line == nil || line.Err() == nil || line.Err().Code != wire.LimbGone || !bytes.Contains(line.Line, []byte(`"LIMB_GONE"`)) {
		t.Fatalf("kept line of a failure: %+v", line)
	}
}
