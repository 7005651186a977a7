package imaging

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkPNGFilter compares the row filters at levels 1 and 2 on the
// 1080p scene and on a real 1080p desktop; it is how defaultFilter was
// chosen (the real desktop decides: agents read real screens).
func BenchmarkPNGFilter(b *testing.B) {
	real, _ := realDesktop(b, 1920, 1080)
	for _, img := range []benchImage{{"scene1920x1080", desktopScene(1920, 1080, 1)}, {"real1920x1080", real}} {
		for _, f := range []struct {
			name string
			id   int
		}{{"none", filterNone}, {"sub", filterSub}, {"up", filterUp}, {"paeth", filterPaeth}, {"auto", filterAuto}} {
			for _, level := range []int{1, 2} {
				b.Run(fmt.Sprintf("%s/%s/level%d", img.name, f.name, level), func(b *testing.B) {
					var buf bytes.Buffer
					for b.Loop() {
						buf.Reset()
						if err := encodePNG(&buf, img.img.Pix, img.img.Stride, 1920, 1080, PNGOptions{Level: level, Workers: 1}, f.id); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(buf.Len()), "out-bytes")
				})
			}
		}
	}
}
