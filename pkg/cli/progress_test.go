package cli

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dvvhq/dvv/pkg/wire"
)

func TestProgressLine(t *testing.T) {
	half := wire.TransferInfo{Bytes: 10 << 20, Total: 20 << 20, BytesPerSec: 5 << 20}
	cases := []struct {
		name  string
		label string
		p     wire.TransferInfo
		width int
		want  string
	}{
		{"bar", "put big.bin", half, 100,
			"put big.bin [===============               ]  50%  10.0 MiB / 20.0 MiB  5.0 MiB/s  ETA 2s"},
		{"narrow bar", "put big.bin", half, 70,
			"put big.bin [=====     ]  50%  10.0 MiB / 20.0 MiB  5.0 MiB/s  ETA 2s"},
		{"no room for a bar", "put big.bin", half, 58,
			"put big.bin   50%  10.0 MiB / 20.0 MiB  5.0 MiB/s  ETA 2s"},
		{"label shortened", "get a-very-long-remote-file-name.tar.gz", half, 60,
			"…-name.tar.gz   50%  10.0 MiB / 20.0 MiB  5.0 MiB/s  ETA 2s"},
		{"only the numbers", "get x", half, 30,
			" 50%  10.0 MiB / 20.0 MiB  5.0 MiB/s  ETA 2s"},
		{"unknown total", "put slow", wire.TransferInfo{Bytes: 3 << 20, BytesPerSec: 1 << 20}, 100,
			"put slow  3.0 MiB  1.0 MiB/s"},
		{"done", "get f", wire.TransferInfo{Bytes: 2048, Total: 2048, BytesPerSec: 1024}, 80,
			"get f [==============================] 100%  2.0 KiB / 2.0 KiB  1.0 KiB/s"},
		{"start", "get f", wire.TransferInfo{Total: 2048}, 80,
			"get f [                              ]   0%  0 B / 2.0 KiB  0 B/s"},
		{"over the total (the file grew)", "get f", wire.TransferInfo{Bytes: 4096, Total: 2048, BytesPerSec: 1024}, 80,
			"get f [==============================] 100%  4.0 KiB / 2.0 KiB  1.0 KiB/s"},
		{"multibyte label", "put été-ünïcødé.txt", wire.TransferInfo{Bytes: 1}, 20,
			"…dé.txt  1 B  0 B/s"},
	}
	for _, c := range cases {
		got := progressLine(c.label, c.p, c.width)
		if got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
		if n := utf8.RuneCountInString(got); n >= c.width && !strings.HasPrefix(c.name, "only") {
			t.Errorf("%s: %d columns in a %d-column terminal", c.name, n, c.width)
		}
	}
}

// A bar that is not on a terminal draws nothing, and clear after the end
// is quiet too.
func TestProgressBarOffTheTerminal(t *testing.T) {
	var b strings.Builder
	bar := newProgressBar(&b, "get f")
	bar.update(wire.TransferInfo{Bytes: 1, Total: 2})
	bar.clear()
	if b.Len() != 0 {
		t.Fatalf("drew %q on a writer that is not a terminal", b.String())
	}
}
