package wire

import "testing"

// TestVerificationSummary: the one line an agent reads says where the
// evidence was, or, unverified, where the screen changed instead.
func TestVerificationSummary(t *testing.T) {
	for _, c := range []struct {
		v    *Verification
		want string
	}{
		{&Verification{Status: VerifyVerified, Reason: "the screen changed near the act's point", AfterMs: 12, Region: &Region{X: 40, Y: 60, W: 90, H: 20}},
			"verified: the screen changed near the act's point after 12 ms (at 40,60 90x20)"},
		{&Verification{Status: VerifyUnverified, Reason: "the screen changed only away from the act's point", WindowMs: 300, Where: "elsewhere", Region: &Region{X: 384, Y: 288, W: 32, H: 32}},
			"unverified: the screen changed only away from the act's point (watched 300 ms; changed at 384,288 32x32)"},
		{&Verification{Status: VerifyUnverified, Reason: "nothing changed near the act's point", WindowMs: 300},
			"unverified: nothing changed near the act's point (watched 300 ms)"},
		{nil, ""},
	} {
		if got := c.v.Summary(); got != c.want {
			t.Errorf("Summary() = %q, want %q", got, c.want)
		}
	}
}
