package wire

import "strconv"

// Verification states of an act's answer.
const (
	// VerifyDispatched: the act was sent and nothing was watched for
	// (verifyMs 0, or an act whose effect cannot be seen).
	VerifyDispatched = "dispatched"
	// VerifyVerified: the effect was seen (the screen changed, the
	// terminal echoed, the server confirmed).
	VerifyVerified = "verified"
	// VerifyUnverified: nothing was seen within the window; Reason says
	// what that may mean.
	VerifyUnverified = "unverified"
)

// Verification is what an act's answer proves beyond "sent".
type Verification struct {
	Status string `json:"status"` // dispatched, verified, unverified
	Reason string `json:"reason,omitempty"`
	// Where the screen changed: "near" the act's point, "elsewhere", or
	// "screen" for acts without a point (type, key).
	Where string `json:"where,omitempty"`
	// Region bounds what changed in the window, native pixels.
	Region *Region `json:"region,omitempty"`
	// AfterMs is when the evidence came, counted from the end of the act;
	// WindowMs the longest the answer would have waited.
	AfterMs  int64 `json:"afterMs"`
	WindowMs int64 `json:"windowMs"`
}

// DefaultVerifyMs is how long an act's answer waits for evidence when the
// request does not say. It is measured (docs/benchmarks.md, "act
// verification"): well above the time a real server takes to show a
// click's or a keystroke's effect, and paid in full only by an act that
// changed nothing.
const DefaultVerifyMs = 300

// MaxVerifyMs bounds verifyMs.
const MaxVerifyMs = 5000

// Summary is the verification in one line for people and agents, e.g.
// "verified: the screen changed near the act's point after 12 ms (at 40,60 90x20)".
func (v *Verification) Summary() string {
	if v == nil {
		return ""
	}
	s := v.Status
	if v.Reason != "" {
		s += ": " + v.Reason
	}
	if v.Status == VerifyVerified {
		s += " after " + itoa(v.AfterMs) + " ms"
		if r := v.Region; r != nil {
			s += " (at " + itoa(int64(r.X)) + "," + itoa(int64(r.Y)) + " " + itoa(int64(r.W)) + "x" + itoa(int64(r.H)) + ")"
		}
	} else if v.Status == VerifyUnverified {
		s += " (watched " + itoa(v.WindowMs) + " ms)"
	}
	return s
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Recording describes one recording of a limb (`record`).
type Recording struct {
	LimbID    string `json:"limbId"`
	Format    string `json:"format"` // "asciicast-v2" (terminals) or "fbs" (desktops, RFB session format)
	Path      string `json:"path"`
	ActsPath  string `json:"actsPath"` // one JSON object per act, on the recording's clock
	StartedMs int64  `json:"startedMs"`
	Bytes     int64  `json:"bytes"`
	Acts      int    `json:"acts"`
	Dropped   int    `json:"dropped,omitempty"` // acts not written (the writer fell behind)
	Active    bool   `json:"active"`
	Ended     string `json:"ended,omitempty"` // why it stopped: "stopped", "size cap reached", "limb closed", an error
}
