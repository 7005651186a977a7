package imaging

import "testing"

func TestFitScale(t *testing.T) {
	cases := []struct {
		w, h, edge, pix int
		want            float64
	}{
		{1024, 768, 1568, 1150000, 1},
		{1280, 800, 1568, 1150000, 1},
		{1366, 768, 1568, 1150000, 1},
		{1920, 1080, 1568, 1150000, 0.5},
		{1440, 900, 1568, 1150000, 0.5}, // 1.30 MP: over the pixel budget
		{2560, 1440, 1568, 1150000, 0.5},
		{3840, 2160, 1568, 1150000, 0.25},
		{1920, 1080, 0, 0, 1},
		{100000, 10, 1568, 0, 0.125},
	}
	for _, c := range cases {
		if got := FitScale(c.w, c.h, c.edge, c.pix); got != c.want {
			t.Errorf("FitScale(%d, %d, %d, %d) = %v, want %v", c.w, c.h, c.edge, c.pix, got, c.want)
		}
	}
}
