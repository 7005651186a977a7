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

// Verification is what an act's answer proves beyond "sent". On a
// desktop only a change tied to the act verifies it: near a pointer act's
// point (or a drag's ends), or where typed input goes; a change in an area
// that was already changing before the act (a clock, a blinking caret, a
// log window) is set aside and listed in Discounted.
type Verification struct {
	Status string `json:"status"` // dispatched, verified, unverified
	Reason string `json:"reason,omitempty"`
	// Where the evidence was: "near" a pointer act's point, "input" where
	// typed input goes (the caret, the previous input's effect, the last
	// click), "screen" for a resize, "terminal", "clipboard"; on an
	// unverified desktop act, "elsewhere" when the screen changed only
	// where the act cannot be tied to.
	Where string `json:"where,omitempty"`
	// Region bounds the evidence (verified) or what changed away from the
	// act (unverified), native pixels.
	Region *Region `json:"region,omitempty"`
	// Changes lists the areas that changed in the window but could not be
	// tied to the act (unverified answers; at most MaxVerifyAreas, largest
	// first), so the caller knows where to look.
	Changes []Region `json:"changes,omitempty"`
	// Discounted lists the areas that changed in the window but were
	// already changing before the act, so they were not taken for its
	// effect (at most MaxVerifyAreas, largest first).
	Discounted []Discounted `json:"discounted,omitempty"`
	// AfterMs is when the evidence came, counted from the end of the act;
	// WindowMs the longest the answer would have waited.
	AfterMs  int64 `json:"afterMs"`
	WindowMs int64 `json:"windowMs"`
}

// Discounted is an area whose change an act's verification set aside.
type Discounted struct {
	X int `json:"x"`
	Y int `json:"y"`
	W int `json:"w"`
	H int `json:"h"`
	// Why: "moving" (it kept changing on its own before the act: a clock,
	// a log, a progress bar) or "blinking" (it went back to a look it had
	// shown on its own before: a caret, a blinking cursor).
	Why string `json:"why"`
}

// Why an area was discounted.
const (
	DiscountMoving   = "moving"
	DiscountBlinking = "blinking"
)

// MaxVerifyAreas bounds Changes and Discounted.
const MaxVerifyAreas = 8

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
		s += " (watched " + itoa(v.WindowMs) + " ms"
		if r := v.Region; r != nil {
			s += "; changed at " + itoa(int64(r.X)) + "," + itoa(int64(r.Y)) + " " + itoa(int64(r.W)) + "x" + itoa(int64(r.H))
		}
		s += ")"
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
