package vtscreen

import (
	"testing"

	ts "github.com/dvvhq/dvv/internal/termstreams"
)

// BenchmarkStreams feeds 8 MiB of each kind of output in 32 KiB chunks
// (what an SSH channel delivers) to the emulator alone and to a Screen,
// and reads the text once at the end, as a text wait would:
//
//	go test ./pkg/vtscreen -run '^$' -bench Streams -benchtime 3x
//
// MB/s is per core: the work is single-threaded.
func BenchmarkStreams(b *testing.B) {
	const cols, rows, size = 120, 40, 8 << 20
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
		for i := 0; i < b.N; i++ {
			for at := 0; at < len(data); at += 32 << 10 {
				write(data[at:min(at+32<<10, len(data))])
			}
			read()
		}
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
