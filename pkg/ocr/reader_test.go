package ocr

import (
	"bytes"
	"context"
	"image"
	"image/draw"
	"image/png"
	"os/exec"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/fb"
)

// label renders text with ImageMagick (DejaVu Sans, black on white), the
// way a toolkit draws a UI string.
func label(t testing.TB, text string, points int) *image.RGBA {
	t.Helper()
	return labelIn(t, "DejaVu-Sans", text, points)
}

// labelIn renders text in a font ImageMagick knows by that name.
func labelIn(t testing.TB, font, text string, points int) *image.RGBA {
	t.Helper()
	testbed.Need(t, "convert")
	out, err := exec.Command("convert", "-background", "white", "-fill", "black", "-font", font,
		"-pointsize", itoa(points), "label:"+text, "png:-").Output()
	if err != nil {
		t.Fatalf("convert: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	return rgba
}

func itoa(n int) string { return string(rune('0'+n/10)) + string(rune('0'+n%10)) }

// paint draws img into the mirror at p (damage included).
func paint(b *fb.Buffer, img *image.RGBA, p image.Point) {
	pix, stride, _, _ := b.BeginWrite()
	r := img.Bounds().Add(p)
	for y := 0; y < img.Bounds().Dy(); y++ {
		copy(pix[(p.Y+y)*stride+p.X*4:], img.Pix[y*img.Stride:y*img.Stride+img.Bounds().Dx()*4])
	}
	b.EndWrite(r)
}

func fill(b *fb.Buffer, r image.Rectangle, v byte) {
	pix, stride, _, _ := b.BeginWrite()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			copy(pix[y*stride+x*4:], []byte{v, v, v, 0xff})
		}
	}
	b.EndWrite(r)
}

func TestReaderReadsOnlyWhatChanged(t *testing.T) {
	testbed.Need(t, "tesseract")
	b := fb.New()
	b.Resize(640, 400)
	fill(b, image.Rect(0, 0, 640, 400), 0xff)
	r := NewReader(NewEngine(""), b, "eng")
	defer r.Close()
	ctx := context.Background()

	title := label(t, "Quarterly report", 13)
	paint(b, title, image.Pt(20, 20))
	lines, st, err := r.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Areas != 1 || st.Pixels != 640*400 {
		t.Fatalf("first read: %+v", st)
	}
	if m := Find(lines, "Quarterly report"); len(m) != 1 || !m[0].Box.In(title.Bounds().Add(image.Pt(20, 20)).Inset(-2)) {
		t.Fatalf("title: %+v in %v", m, lines)
	}

	// Unchanged: answered from what was read, no engine run.
	if _, st, _ := r.Read(ctx); st.Areas != 0 {
		t.Fatalf("unchanged screen ran the engine: %+v", st)
	}

	// A dialog-sized change far from the title: only it is read.
	dlg := label(t, "Save as another name?", 12)
	at := image.Pt(300, 250)
	paint(b, dlg, at)
	lines, st, err = r.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Areas != 1 || st.Pixels > 4*int64(dlg.Bounds().Dx()+64)*int64(dlg.Bounds().Dy()+64) {
		t.Fatalf("dialog read more than its area: %+v", st)
	}
	m := Find(lines, "another name")
	if len(m) != 1 || !m[0].Box.In(dlg.Bounds().Add(at).Inset(-2)) {
		t.Fatalf("dialog text: %+v (drawn at %v) in %v", m, dlg.Bounds().Add(at), lines)
	}
	if len(Find(lines, "Quarterly")) != 1 {
		t.Fatalf("the title was lost from the cache: %v", lines)
	}

	// The dialog goes: its text goes with it, the title stays.
	fill(b, dlg.Bounds().Add(at), 0xff)
	lines, _, err = r.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(Find(lines, "another name")) != 0 || len(Find(lines, "Quarterly")) != 1 {
		t.Fatalf("after the dialog closed: %v", lines)
	}
}

func TestMissingProgramIsUnavailable(t *testing.T) {
	b := fb.New()
	b.Resize(64, 64)
	for _, worker := range []string{"", "/nonexistent/dvvocr"} {
		r := NewReader(&Engine{Worker: worker, Program: "/nonexistent/tesseract"}, b, "eng")
		_, _, err := r.Read(context.Background())
		r.Close()
		var ue *UnavailableError
		if err == nil || !asUnavailable(err, &ue) || !strings.Contains(err.Error(), "apt install") {
			t.Fatalf("worker %q: err %v", worker, err)
		}
		if worker != "" && !strings.Contains(err.Error(), "worker \"/nonexistent/dvvocr\" was not found") {
			t.Fatalf("the answer does not say the worker failed: %v", err)
		}
	}
}

func asUnavailable(err error, ue **UnavailableError) bool {
	e, ok := err.(*UnavailableError)
	*ue = e
	return ok
}

func TestMissingLanguageIsUnavailable(t *testing.T) {
	testbed.Need(t, "tesseract")
	img := label(t, "hello", 20)
	_, err := NewEngine("").Recognize(context.Background(), img, image.Point{}, "zzz")
	if _, ok := err.(*UnavailableError); !ok {
		t.Fatalf("err %v", err)
	}
	if _, err := NewEngine("").Recognize(context.Background(), img, image.Point{}, "../etc"); err == nil {
		t.Fatal("a path as language was accepted")
	}
}

func TestReaderDialogOverText(t *testing.T) {
	testbed.Need(t, "tesseract")
	b := fb.New()
	b.Resize(800, 300)
	fill(b, image.Rect(0, 0, 800, 300), 0xff)
	r := NewReader(NewEngine(""), b, "eng")
	defer r.Close()
	ctx := context.Background()
	paint(b, label(t, "alpha bravo charlie delta echo foxtrot golf hotel", 14), image.Pt(10, 100))
	paint(b, label(t, "an unrelated line further down", 14), image.Pt(10, 200))
	if _, _, err := r.Read(ctx); err != nil {
		t.Fatal(err)
	}
	// A small dialog lands on the middle of the first line.
	fill(b, image.Rect(190, 85, 320, 130), 0xff)
	fill(b, image.Rect(190, 85, 320, 86), 0)
	fill(b, image.Rect(190, 129, 320, 130), 0)
	paint(b, label(t, "Overwrite?", 14), image.Pt(205, 98))
	lines, st, err := r.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Pixels >= 800*300/2 {
		t.Fatalf("read %d pixels for a small dialog", st.Pixels)
	}
	for _, w := range []string{"alpha", "Overwrite", "unrelated"} {
		if n := len(Find(lines, w)); n != 1 {
			t.Errorf("%q read %d times: %v", w, n, lines)
		}
	}
}

// TestRepaintIsAnsweredFromTheCache: the same pixels painted again (an
// expose, a window raised again) and the same line moved elsewhere (a
// scroll) are read without an engine run; a changed line is read.
func TestRepaintIsAnsweredFromTheCache(t *testing.T) {
	testbed.Need(t, "tesseract")
	b := fb.New()
	b.Resize(640, 300)
	fill(b, image.Rect(0, 0, 640, 300), 0xff)
	r := NewReader(NewEngine(""), b, "eng")
	defer r.Close()
	ctx := context.Background()
	line := label(t, "Invoice total due", 13)
	paint(b, line, image.Pt(20, 40))
	paint(b, label(t, "Shipping address", 13), image.Pt(20, 120))
	if _, _, err := r.Read(ctx); err != nil {
		t.Fatal(err)
	}
	fill(b, image.Rect(0, 0, 640, 300), 0xff) // a full repaint of the same picture
	paint(b, line, image.Pt(20, 40))
	paint(b, label(t, "Shipping address", 13), image.Pt(20, 120))
	lines, st, err := r.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Areas == 0 || st.Runs != 0 || len(Find(lines, "Invoice total")) != 1 || len(Find(lines, "Shipping")) != 1 {
		t.Fatalf("repaint: %+v %v", st, lines)
	}
	fill(b, image.Rect(0, 0, 640, 300), 0xff) // scrolled: the line moved up
	paint(b, line, image.Pt(20, 10))
	lines, st, err = r.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m := Find(lines, "Invoice total")
	if st.Runs != 0 || len(m) != 1 || !m[0].Box.In(line.Bounds().Add(image.Pt(20, 10)).Inset(-2)) || len(Find(lines, "Shipping")) != 0 {
		t.Fatalf("scrolled: %+v %+v %v", st, m, lines)
	}
	paint(b, label(t, "Payment received", 13), image.Pt(20, 200))
	lines, st, err = r.Read(ctx)
	if err != nil || st.Runs != 1 || len(Find(lines, "Payment received")) != 1 {
		t.Fatalf("new text: %+v %v %v", st, lines, err)
	}
}

// TestEqualBlocksAreReadOnce: a screen repeating the same piece of text
// (a terminal's "-rw-r--r--" on every line) recognises it once within one
// read, with no cache to help, and every copy is found at its own place.
func TestEqualBlocksAreReadOnce(t *testing.T) {
	testbed.Need(t, "tesseract")
	b := fb.New()
	b.Resize(640, 300)
	fill(b, image.Rect(0, 0, 640, 300), 0xff)
	r := NewReader(NewEngine(""), b, "eng")
	defer r.Close()
	r.cache = nil
	same := label(t, "Quarterly report", 13)
	at := []image.Point{{20, 20}, {20, 80}, {300, 140}}
	for _, p := range at {
		paint(b, same, p)
	}
	paint(b, label(t, "Shipping address", 13), image.Pt(20, 220))
	lines, st, err := r.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Blocks != 2 {
		t.Errorf("%d blocks recognised for two distinct ones: %+v", st.Blocks, st)
	}
	m := Find(lines, "quarterly report")
	if len(m) != len(at) {
		t.Fatalf("%d matches of the repeated line: %v", len(m), lines)
	}
	for i, p := range at {
		if want := same.Bounds().Add(p); !m[i].Box.In(want.Inset(-2)) {
			t.Errorf("copy %d read at %v, drawn at %v", i, m[i].Box, want)
		}
	}
	if len(Find(lines, "shipping address")) != 1 {
		t.Errorf("the distinct line: %v", lines)
	}
}

// The frame a read starts from is taken before the mirror is locked; a
// shrink landing in between must leave the areas inside the new pixels
// (reading past them took the daemon down).
func TestAreasAfterAShrinkStayInsideTheMirror(t *testing.T) {
	buf := fb.New()
	if err := buf.Resize(640, 480); err != nil {
		t.Fatal(err)
	}
	r := NewReader(&Engine{}, buf, "eng")
	defer r.Close()
	stale := image.Rect(0, 0, 640, 480)
	if err := buf.Resize(1, 100); err != nil {
		t.Fatal(err)
	}
	areas := r.areas([]image.Rectangle{image.Rect(300, 200, 340, 220), image.Rect(0, 0, 16, 16)}, nil, stale)
	for _, a := range areas {
		if !a.In(image.Rect(0, 0, 1, 100)) {
			t.Fatalf("area %v reaches past the 1x100 mirror", a)
		}
	}
}
