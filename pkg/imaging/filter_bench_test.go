package imaging

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkPNGFilter compares the row filters at the default level on the
// 1080p desktop scene; it is how defaultFilter was chosen.
func BenchmarkPNGFilter(b *testing.B) {
	img := desktopScene(1920, 1080, 1)
	for _, f := range []struct {
		name string
		id   int
	}{{"none", filterNone}, {"sub", filterSub}, {"up", filterUp}, {"paeth", filterPaeth}, {"auto", filterAuto}} {
		for _, level := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/level%d", f.name, level), func(b *testing.B) {
				var buf bytes.Buffer
				for b.Loop() {
					buf.Reset()
					if err := encodePNG(&buf, img.Pix, img.Stride, 1920, 1080, PNGOptions{Level: level, Workers: 1}, f.id); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(buf.Len()), "bytes")
			})
		}
	}
}
