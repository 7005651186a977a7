package vtscreen

import (
	"syscall"
	"testing"
	"time"

	ts "github.com/dvvhq/dvv/internal/termstreams"
)

// BenchmarkStreams feeds 2 MiB of each kind of output in 32 KiB chunks
// (what an SSH channel delivers) to the emulator alone and to a Screen,
// and reads the text once at the end, as a text wait would:
//
//	go test ./pkg/vtscreen -run '^$' -bench Streams -benchtime 3x
//
// MB/cpu-s is per core of CPU time (the work is single-threaded); MB/s is
// wall time and follows the machine's load.
func BenchmarkStreams(b *testing.B) {
	const cols, rows, size = 120, 40, 2 << 20
	streams := []struct {
		name string
		data []byte
	}{
		{"plain", ts.PlainText(size)},
		{"ls-color", ts.ColouredLs(size)},
		{"top-redraw", ts.TopRedraw(size, cols, rows)},
		{"wide-emoji", ts.WideText(size)},
	}
	feed := func(b *testing.B, data []byte, write func([]byte), read func()) {
		b.SetBytes(int64(len(data)))
		cpu0 := cpuTime()
		for i := 0; i < b.N; i++ {
			for at := 0; at < len(data); at += 32 << 10 {
				write(data[at:min(at+32<<10, len(data))])
			}
			read()
		}
		// Wall time on a loaded machine says little; CPU time is the cost.
		b.ReportMetric(float64(len(data))*float64(b.N)/1e6/(cpuTime()-cpu0).Seconds(), "MB/cpu-s")
	}
	for _, st := range streams {
		b.Run(st.name+"/emulator-alone", func(b *testing.B) {
			ref := newReference(cols, rows)
			defer ref.close()
			feed(b, st.data, func(p []byte) { ref.emu.Write(p) }, func() { ref.text() })
		})
		b.Run(st.name+"/screen", func(b *testing.B) {
			s := New(cols, rows, nil)
			defer s.Close()
			feed(b, st.data, s.Write, func() { s.Text() })
		})
	}
}

// cpuTime is this process's user and system time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
