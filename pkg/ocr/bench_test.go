package ocr

import (
	"context"
	"fmt"
	"image"
	"syscall"
	"testing"
	"time"

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
			r.cache = nil // every dialog is new text
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

// BenchmarkFullScreenRead: a 1920x1080 mirror with 60 lines of
// terminal-like text, read whole (cache off), then the same pixels
// repainted (cache on).
//
//	go test -run '^$' -bench FullScreenRead -benchtime 3x ./pkg/ocr
func BenchmarkFullScreenRead(b *testing.B) {
	worker := buildWorker(b)
	buf := fb.New()
	buf.Resize(1920, 1080)
	fill(buf, image.Rect(0, 0, 1920, 1080), 0xff)
	for i := 0; i < 60; i++ {
		paint(buf, label(b, fmt.Sprintf("-rw-r--r-- 1 root root %d Jun 24 2025 libexample%d.so.%d", 4096+i*37, i, i%7), 10), image.Pt(10+(i/30)*960, 10+(i%30)*34))
	}
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
		b.Run(mode.name, func(b *testing.B) {
			r := NewReader(mode.eng, buf, "eng")
			defer r.Close()
			if !cached {
				r.cache = nil
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
