package recording

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Act is one line of an act log (<base>.acts.jsonl), as dvvd writes it:
// what an agent did, never typed text (its length only).
type Act struct {
	T          float64 `json:"t"`             // seconds since the recording started, when the act was sent
	End        float64 `json:"end,omitempty"` // seconds since the start, when it was answered
	Op         string  `json:"op"`
	Action     string  `json:"action,omitempty"`
	Attachment string  `json:"attachment"`
	X          *int    `json:"x,omitempty"`
	Y          *int    `json:"y,omitempty"`
	ToX        *int    `json:"toX,omitempty"`
	ToY        *int    `json:"toY,omitempty"`
	Keys       string  `json:"keys,omitempty"`
	// A click's details beyond its point: the wheel's direction and turns,
	// a drag's button, the keys held (replay and export re-issue them).
	Direction    string   `json:"direction,omitempty"`
	Clicks       *int     `json:"clicks,omitempty"`
	Button       string   `json:"button,omitempty"`
	Modifiers    []string `json:"modifiers,omitempty"`
	TextLen      *int     `json:"textLen,omitempty"`
	Outcome      string   `json:"outcome"`
	Verification string   `json:"verification,omitempty"`
}

// Refused is an act that answered an error code.
func (a Act) Refused() bool { return a.Outcome != "" && a.Outcome != "ok" }

// Pointer is an act at a point of the screen (a click, a drag's start).
func (a Act) Pointer() bool { return a.Op == "click" && a.X != nil && a.Y != nil }

// Label is the act in a few words for a video or a page: typed text as its
// length only, since the act log never holds the text.
func (a Act) Label() string {
	var s string
	switch {
	case a.Op == "type" && a.TextLen != nil:
		s = fmt.Sprintf("typed %d chars", *a.TextLen)
	case a.Op == "term_send" && a.TextLen != nil:
		s = fmt.Sprintf("sent %d chars", *a.TextLen)
	case a.Op == "key":
		s = "key " + a.Keys
	case a.Pointer():
		s = fmt.Sprintf("%s %d,%d", a.Action, *a.X, *a.Y)
	default:
		s = a.Op
		if a.Action != "" {
			s += " " + a.Action
		}
	}
	if a.Refused() {
		s += " - refused: " + a.Outcome
	}
	return s
}

// ReadActs reads an act log; a line being written (the last, without its
// newline) is left out, and a missing log is no acts.
func ReadActs(path string) ([]Act, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	acts, err := DecodeActs(f)
	if err != nil {
		return acts, fmt.Errorf("%s: %w", path, err)
	}
	return acts, nil
}

// DecodeActs reads an act log from r (see ReadActs).
func DecodeActs(rd io.Reader) ([]Act, error) {
	var acts []Act
	r := bufio.NewReader(rd)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if err != nil { // the end, or a line not yet complete
			return acts, nil
		}
		var a Act
		if jerr := json.Unmarshal(line, &a); jerr != nil {
			return acts, fmt.Errorf("line %d is not an act: %v", n, jerr)
		}
		acts = append(acts, a)
	}
}

// actHold is how long an act stays drawn after it happened.
const actHold = 1.0

// actsAt are the acts drawn at second s of a recording: those sent in the
// last actHold seconds.
func actsAt(acts []Act, s float64) []Act {
	var out []Act
	for _, a := range acts {
		if a.T <= s+1e-9 && s < a.T+actHold {
			out = append(out, a)
		}
	}
	return out
}
