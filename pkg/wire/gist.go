package wire

import "encoding/json"

// Gist is what generic code reads of a request, whatever its op: dvvd's
// history detail, the viewer's act log, a recording's acts, an act's
// verification and the address checks; policy's action and a fan-out's
// arguments; a client's deadline. Each op's Args answer it from their own
// fields (Gist(), generated beside them), so generic code reads typed
// fields and a misspelt one does not compile; a field the op does not take
// stays zero (as does every field of an Args written by hand without a
// Gist method).
type Gist struct {
	Action, Until  string
	X, Y, ToX, ToY *int
	Text           *string
	Keys, BytesHex string
	VerifyMs       *int
	// how long the op may wait on dvvd's side: a client's deadline adds it
	TimeoutMs, WaitMs *int

	Protocol, Address string
	Addresses         []string
	Host              *HostSpec

	Arguments json.RawMessage // a fan-out's (group_run's) inner arguments
}

// Gisted is an Args type that has any of Gist's fields.
type Gisted interface{ Gist() Gist }

// GistOf is a request's gist: zero for an op that takes none of its fields.
func GistOf(a Args) Gist {
	if g, ok := a.(Gisted); ok {
		return g.Gist()
	}
	return Gist{}
}

// Varied is an Args type of an op with a variant field (action, until,
// form): Variant is its value.
type Varied interface{ Variant() string }

// Selected is an Args type that addresses a limb: Selection is its
// selector (the embedded Target's, or close's limbId alone).
type Selected interface{ Selection() Target }

// Selection is the selector itself; Args embedding Target have it.
func (t Target) Selection() Target { return t }

// Aim points the selector at one limb (a group_run member).
func (t *Target) Aim(limbID string) { *t = Target{LimbID: limbID} }

// SelectionOf is a request's selector: zero for an op that takes none.
func SelectionOf(a Args) Target {
	if s, ok := a.(Selected); ok {
		return s.Selection()
	}
	return Target{}
}

// Verifiable is an answer with a verification: dispatch sets what was
// seen of an act's effect, and a recording keeps what the answer says.
type Verifiable interface {
	SetVerification(*Verification)
	Verified() *Verification
}

// LimbAnswered is the answer of a limb op: dispatch fills the limb's id
// when the handler left it out.
type LimbAnswered interface{ FillLimbID(string) }
