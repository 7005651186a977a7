package cli

import (
	"strings"
	"testing"

	"github.com/dvvhq/dvv/pkg/wire"
)

// TestWindowsSaysHowManyWereLeftOut: a list dvvd cut at its bound prints
// how many windows it left out, and a title carrying terminal escapes
// prints escaped.
func TestWindowsSaysHowManyWereLeftOut(t *testing.T) {
	answer := func(*sentReq) (wire.Answer, error) {
		return &wire.WindowsAnswer{Windows: &wire.WindowList{Omitted: 50, Display: ":1", WM: "Openbox",
			Windows: []wire.Window{{ID: "0x400001", Title: "evil\x1b]0;pwned\x07\x1b[2J\u009b31m"}}}}, nil
	}
	_, code, out, errs := answered(t, "", answer, "windows", "vnc-1")
	if code != 0 || strings.ContainsAny(out+errs, "\x1b\a\u009b") {
		t.Fatalf("exit %d, output carries raw escapes: %q %q", code, out, errs)
	}
	if !strings.Contains(errs, "50 more windows, the lowest in the stacking order, left out (a list holds the 1 topmost)") {
		t.Errorf("stderr does not say how many were left out: %q", errs)
	}
}
