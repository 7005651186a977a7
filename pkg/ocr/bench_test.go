package ocr

import (
	"context"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/fb"
)

// BenchmarkDialogRead: a dialog-sized change (one line of UI text, 12
// points, drawn anew each time) on a 1920x1080 mirror, read by a Reader
// with the worker and with the program. cpu-ms/op is this process's CPU
// and the worker's (a program run's is in this process's children).
//
//	go test -run '^$' -bench DialogRead -benchtime 20x ./pkg/ocr
func BenchmarkDialogRead(b *testing.B) {
	worker := buildWorker(b)
	for _, mode := range []struct {
		name string
		eng  *Engine
	}{{"worker", &Engine{Worker: worker, Program: "/nonexistent/tesseract"}}, {"program", &Engine{Program: "tesseract"}}} {
		b.Run(mode.name, func(b *testing.B) {
			buf := fb.New()
			buf.Resize(1920, 1080)
			fill(buf, image.Rect(0, 0, 1920, 1080), 0xff)
			r := NewReader(mode.eng, buf, "eng")
			defer r.Close()
			r.cache, r.dict = nil, nil // every dialog is new text
			ctx := context.Background()
			if _, _, err := r.Read(ctx); err != nil {
				b.Fatal(err)
			}
			labels := make([]*image.RGBA, 10)
			for i := range labels {
				labels[i] = label(b, fmt.Sprintf("Report %d saved to the shared folder", i), 12)
			}
			at := image.Pt(300, 250)
			cpu0 := selfCPU() + workersCPU(worker)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				l := labels[i%len(labels)]
				paint(buf, l, at)
				b.StartTimer()
				lines, _, err := r.Read(ctx)
				b.StopTimer()
				if err != nil || len(Find(lines, fmt.Sprintf("Report %d saved", i%len(labels)))) != 1 {
					b.Fatalf("read %v: %v", lines, err)
				}
				fill(buf, l.Bounds().Add(at), 0xff)
				if _, _, err := r.Read(ctx); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.StopTimer()
			// The erase reads are blank areas: no engine run, little CPU.
			b.ReportMetric(float64((selfCPU()+workersCPU(worker)-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkFullScreenRead: a 1920x1080 mirror with 60 lines of text, read
// whole (cache off), then the same pixels repainted (cache on), beside the
// bare tesseract program on the same frame. Two screens: "ui", lines in
// DejaVu Sans 10 pt, each different from the others; "terminal", an `ls -l`
// in DejaVu Sans Mono 16 px (an xterm's -fs 12) whose permissions, owners
// and dates repeat from line to line while sizes and names do not.
//
//	go test -run '^$' -bench FullScreenRead -benchtime 3x ./pkg/ocr
func BenchmarkFullScreenRead(b *testing.B) {
	worker := buildWorker(b)
	months := []string{"Jan", "Mar", "Jun", "Oct"}
	for _, screen := range []struct {
		name string
		draw func(buf *fb.Buffer)
	}{
		{"ui", func(buf *fb.Buffer) {
			for i := 0; i < 60; i++ {
				paint(buf, label(b, fmt.Sprintf("-rw-r--r-- 1 root root %d Jun 24 2025 libexample%d.so.%d", 4096+i*37, i, i%7), 10), image.Pt(10+(i/30)*960, 10+(i%30)*34))
			}
		}},
		{"terminal", func(buf *fb.Buffer) {
			for i := 0; i < 60; i++ {
				perm, links := "-rw-r--r--", 1
				if i%5 == 0 {
					perm, links = "drwxr-xr-x", 2
				}
				text := fmt.Sprintf("%s %2d root root %8d %s %2d  2025 libexample%d.so.%d", perm, links, 4096+i*7919, months[i%4], 1+i%28, i, i%7)
				paint(buf, labelIn(b, "DejaVu-Sans-Mono", text, 16), image.Pt(4+(i/40)*960, 4+(i%40)*24))
			}
		}},
	} {
		buf := fb.New()
		buf.Resize(1920, 1080)
		fill(buf, image.Rect(0, 0, 1920, 1080), 0xff)
		screen.draw(buf)
		dumpCanvases(b, buf, screen.name)
		ctx := context.Background()
		for _, mode := range []struct {
			name   string
			eng    *Engine
			cached bool
		}{
			{"new/worker", &Engine{Worker: worker, Program: "/nonexistent/tesseract"}, false},
			{"new/program", &Engine{Program: "tesseract"}, false},
			{"repainted/worker", &Engine{Worker: worker, Program: "/nonexistent/tesseract"}, true},
		} {
			cached := mode.cached
			b.Run(screen.name+"/"+mode.name, func(b *testing.B) {
				r := NewReader(mode.eng, buf, "eng")
				defer r.Close()
				if !cached {
					r.cache, r.dict = nil, nil
				} else if _, _, err := r.Read(ctx); err != nil {
					b.Fatal(err)
				}
				cpu0 := selfCPU() + workersCPU(worker)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					pix, stride, w, h := buf.BeginWrite() // the same pixels, all damaged
					_, _ = pix, stride
					buf.EndWrite(image.Rect(0, 0, w, h))
					b.StartTimer()
					lines, st, err := r.Read(ctx)
					if err != nil || len(lines) < 50 || (cached && st.Runs != 0) {
						b.Fatalf("%d lines, %+v, %v", len(lines), st, err)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64((selfCPU()+workersCPU(worker)-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
			})
		}
		b.Run(screen.name+"/bare-program", func(b *testing.B) {
			testbed.Need(b, "tesseract")
			img, _ := buf.Snapshot(image.Rect(0, 0, 1920, 1080))
			g := toGray(img)
			f := filepath.Join(b.TempDir(), "frame.pgm")
			if err := os.WriteFile(f, pgm(g.pix, g.w, g.h), 0o644); err != nil {
				b.Fatal(err)
			}
			cpu0 := selfCPU()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cmd := exec.Command("tesseract", f, "-", "--oem", "1", "--psm", "4", "tsv")
				cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
				if out, err := cmd.Output(); err != nil || len(out) == 0 {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64((selfCPU()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// dumpCanvases writes, when DVV_BENCH_DUMP names a directory, the screen
// and the canvas dvvd gives the engine for it with every block at 1x and
// 2x, as PGM, so the engine's settings can be tried on them by hand
// (docs/benchmarks.md).
func dumpCanvases(b *testing.B, buf *fb.Buffer, name string) {
	dir := os.Getenv("DVV_BENCH_DUMP")
	if dir == "" {
		return
	}
	img, _ := buf.Snapshot(image.Rect(0, 0, 1920, 1080))
	g := toGray(img)
	files := map[string][]byte{name + "-frame.pgm": pgm(g.pix, g.w, g.h)}
	for _, s := range []int{1, 2} {
		c := &canvas{scale: s}
		for _, bl := range segment(img, image.Point{}) {
			c.add(bl)
		}
		pix, w, h := c.draw()
		files[fmt.Sprintf("%s-canvas-%dx.pgm", name, s)] = pgm(pix, w, h)
	}
	for f, data := range files {
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

func selfCPU() time.Duration {
	var ru, rc syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &rc)
	return time.Duration(ru.Utime.Nano()+ru.Stime.Nano()+rc.Utime.Nano()+rc.Stime.Nano()) * time.Nanosecond
}

func workersCPU(path string) time.Duration {
	n := 0
	for _, p := range workerPIDs(path) {
		n += cpuTicks(p)
	}
	return time.Duration(n) * 10 * time.Millisecond
}
