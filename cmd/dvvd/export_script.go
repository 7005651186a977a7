package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"

	"github.com/dvvhq/dvv/pkg/imgmatch"
	"github.com/dvvhq/dvv/pkg/localfile"
	"github.com/dvvhq/dvv/pkg/recording"
)

// exportScriptArg runs dvvd as a one-shot writer of a recording's acts as
// a dvv script: `dvvd __export-script FILE.fbs OUT.dvv`. Before each act
// the script has a checkpoint, an expect on a crop of the recorded screen
// around the act's point, saved beside the script as OUT.act-N.png. `dvv
// record export --script` and `dvv replay` run it (the decoder stays out
// of dvv, as for __export-mp4). Not a documented command: dvv is its
// interface; docs/scripts.md describes the script.
const exportScriptArg = "__export-script"

// diffPicturesArg draws where two pictures differ: `dvvd __diff-pictures
// EXPECTED.png ACTUAL.png OUT.png`, for `dvv replay` at a divergence.
const diffPicturesArg = "__diff-pictures"

func diffPictures(args []string, stderr io.Writer) int {
	if len(args) != 3 {
		fmt.Fprintf(stderr, "dvvd %s: want EXPECTED.png ACTUAL.png OUT.png\n", diffPicturesArg)
		return exportUsage
	}
	var imgs [2]image.Image
	for i, p := range args[:2] {
		f, err := os.Open(p)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return exportFailed
		}
		imgs[i], err = png.Decode(f)
		f.Close()
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", p, err)
			return exportFailed
		}
	}
	if err := writePNG(args[2], diffPicture(imgs[0], imgs[1])); err != nil {
		fmt.Fprintln(stderr, err)
		return exportFailed
	}
	return exportOK
}

// diffPicture marks in red the pixels where a and b differ (by more than
// 48 over R+G+B, what a caret's antialiasing stays under), over a faded.
func diffPicture(a, b image.Image) *image.RGBA {
	ab, bb := a.Bounds(), b.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, ab.Dx(), ab.Dy()))
	fade := func(v uint32) uint8 { return uint8(255 - (255-v>>8)/4) }
	for y := 0; y < ab.Dy(); y++ {
		for x := 0; x < ab.Dx(); x++ {
			ar, ag, abl, _ := a.At(ab.Min.X+x, ab.Min.Y+y).RGBA()
			differs := true
			if x < bb.Dx() && y < bb.Dy() {
				br, bg, bbl, _ := b.At(bb.Min.X+x, bb.Min.Y+y).RGBA()
				differs = (absDiff(ar, br)+absDiff(ag, bg)+absDiff(abl, bbl))>>8 > 48
			}
			if differs {
				out.Set(x, y, color.RGBA{255, 0, 0, 255})
			} else {
				out.Set(x, y, color.RGBA{fade(ar), fade(ag), fade(abl), 255})
			}
		}
	}
	return out
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

// Checkpoint sizes: the crop around an act's point, grown where it is flat.
var checkpointSides = []int{96, 192, 384}

// checkpointMargin is how far (each way) the live screen may be off the
// recorded crop's place and still match; checkpointThreshold the least
// similarity; both are replay's documented tolerance.
const (
	checkpointMargin    = 4
	checkpointThreshold = "0.9"
	checkpointSettle    = "5s"
)

func exportScript(args []string, stderr io.Writer) int {
	if len(args) != 2 {
		fmt.Fprintf(stderr, "dvvd %s: want FILE.fbs OUT.dvv\n", exportScriptArg)
		return exportUsage
	}
	in, out := args[0], args[1]
	if filepath.Ext(in) != ".fbs" {
		fmt.Fprintf(stderr, "%s is not a desktop recording (.fbs): a terminal's acts have no screen to check\n", in)
		return exportFailed
	}
	if st, err := os.Stat(in); err == nil {
		debug.SetMemoryLimit(exportMemory + 2*st.Size())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := writeScript(ctx, in, out); err != nil {
		fmt.Fprintln(stderr, err)
		return exportFailed
	}
	return exportOK
}

// replayable are the acts a script re-issues: what a desktop's input was.
func replayable(a recording.Act) bool {
	if a.Refused() {
		return false
	}
	switch a.Op {
	case "click":
		return a.Pointer()
	case "key":
		return a.Keys != ""
	case "type":
		return a.TextLen != nil
	}
	return false
}

func writeScript(ctx context.Context, in, out string) error {
	acts, err := recording.ReadActs(recording.ActsPath(in))
	if err != nil {
		return err
	}
	pl, err := recording.OpenPlayer(ctx, in)
	if err != nil {
		return err
	}
	defer pl.Close()
	base := strings.TrimSuffix(filepath.Base(out), filepath.Ext(out))
	dir := filepath.Dir(out)
	var b strings.Builder
	fmt.Fprintf(&b, "# dvv script of the recording %s (dvv record export --script)\n", filepath.Base(in))
	fmt.Fprintf(&b, "# run it with: dvv script --limb LIMB %s", filepath.Base(out))
	var typed []string
	n := 0
	for _, a := range acts {
		if replayable(a) && a.Op == "type" {
			typed = append(typed, fmt.Sprintf("--var text_%d=…", n+1))
		}
		if replayable(a) {
			n++
		}
	}
	fmt.Fprintf(&b, " %s\n", strings.Join(typed, " "))
	n = 0
	px, py, havePoint := 0, 0, false
	for _, a := range acts {
		if !replayable(a) {
			continue
		}
		n++
		if a.Pointer() {
			px, py, havePoint = *a.X, *a.Y, true
		}
		frame, err := pl.Frame(uint32(a.T * 1000))
		if err != nil {
			return fmt.Errorf("act %d: %w", n, err)
		}
		x, y := px, py
		if !havePoint {
			x, y = frame.Bounds().Dx()/2, frame.Bounds().Dy()/2
		}
		box, crop := checkpoint(frame, x, y)
		b.WriteByte('\n')
		if crop == nil {
			fmt.Fprintf(&b, "# act %d t=%.3f box=-: %s by %s (the screen there is flat: no checkpoint)\n", n, a.T, a.Label(), a.Attachment)
		} else {
			name := fmt.Sprintf("%s.act-%d.png", base, n)
			if err := writePNG(filepath.Join(dir, name), crop); err != nil {
				return err
			}
			fmt.Fprintf(&b, "# act %d t=%.3f box=%d,%d,%d,%d: %s by %s\n", n, a.T, box.Min.X, box.Min.Y, box.Dx(), box.Dy(), a.Label(), a.Attachment)
			r := box.Inset(-checkpointMargin).Intersect(frame.Bounds())
			fmt.Fprintf(&b, "expect \"${script_dir}/%s\" --region %d,%d,%d,%d --threshold %s --timeout %s\n",
				name, r.Min.X, r.Min.Y, r.Dx(), r.Dy(), checkpointThreshold, checkpointSettle)
		}
		b.WriteString(actStep(a, n) + "\n")
	}
	if n == 0 {
		return fmt.Errorf("%s holds no acts to replay (clicks, keys, typed text)", recording.ActsPath(in))
	}
	return writeBeside(out, []byte(b.String()))
}

// actStep is an act as a dvv script step.
func actStep(a recording.Act, n int) string {
	switch a.Op {
	case "key":
		return "key " + quoteWord(a.Keys)
	case "type":
		return fmt.Sprintf("type \"${text_%d}\"", n)
	}
	s := fmt.Sprintf("click %d %d", *a.X, *a.Y)
	if a.Action != "" && a.Action != "click" {
		s += " --action " + a.Action
	}
	if a.Action == "drag" && a.ToX != nil && a.ToY != nil {
		s += fmt.Sprintf(" --to-x %d --to-y %d", *a.ToX, *a.ToY)
		if a.Button != "" {
			s += " --button " + a.Button
		}
	}
	if a.Action == "scroll" {
		dir := a.Direction
		if dir == "" {
			dir = "down"
		}
		s += " --direction " + dir
		if a.Clicks != nil {
			s += " --clicks " + strconv.Itoa(*a.Clicks)
		}
	}
	if len(a.Modifiers) > 0 {
		s += " --modifiers " + quoteWord(strings.Join(a.Modifiers, ","))
	}
	return s
}

// quoteWord writes a word a script reads back unchanged (pkg/script's
// rules: single quotes are literal).
func quoteWord(w string) string {
	if w != "" && !strings.ContainsAny(w, " \t\"'\\$#") {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", "") + "'"
}

// checkpoint is the crop of frame around x,y a replay compares: the
// smallest of checkpointSides that is not flat (a patch of one colour
// matches anywhere, and dvvd's expect refuses it), kept inside the frame.
func checkpoint(frame *image.RGBA, x, y int) (image.Rectangle, *image.RGBA) {
	fr := frame.Bounds()
	for _, side := range checkpointSides {
		w, h := min(side, fr.Dx()), min(side, fr.Dy())
		x0 := min(max(x-w/2, fr.Min.X), fr.Max.X-w)
		y0 := min(max(y-h/2, fr.Min.Y), fr.Max.Y-h)
		box := image.Rect(x0, y0, x0+w, y0+h)
		crop := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.Draw(crop, crop.Bounds(), frame, box.Min, draw.Src)
		if _, err := imgmatch.NewTemplate(crop); err == nil {
			return box, crop
		}
	}
	return image.Rectangle{}, nil
}

func writePNG(path string, img image.Image) error {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return err
	}
	return writeBeside(path, b.Bytes())
}

// writeBeside writes a new file through a fresh one beside it, renamed
// over path: a name another local user planted at path (a symlink) is
// replaced, never written through (pkg/localfile).
func writeBeside(path string, data []byte) error {
	tmp, err := localfile.CreateBeside(path, 0o600)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
