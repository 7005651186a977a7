package wire

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestOpTableIsConsistent: every field an op takes is a field of its Args,
// every variant restriction names a real variant, and the variant field is
// one of the op's fields.
func TestOpTableIsConsistent(t *testing.T) {
	for _, s := range Ops() {
		if s.Variant != "" {
			if _, ok := s.Field(s.Variant); !ok {
				t.Errorf("%s: variant field %q is not among its fields", s.Name, s.Variant)
			}
			if len(s.Variants) == 0 {
				t.Errorf("%s: variant field without variants", s.Name)
			}
		}
		for _, f := range s.Fields {
			if !slices.Contains(ArgsFields(s.Args), f.Name) {
				t.Errorf("%s: field %q is not a field of %v", s.Name, f.Name, s.Args)
			}
			for _, o := range f.Only {
				if !s.HasVariant(o) {
					t.Errorf("%s.%s applies to %q, which is not one of %v", s.Name, f.Name, o, s.Variants)
				}
			}
		}
		for v := range s.ActionCaps {
			if !s.HasVariant(v) {
				t.Errorf("%s: capabilities for unknown action %q", s.Name, v)
			}
		}
		for _, c := range s.Raises {
			if !c.Known() {
				t.Errorf("%s raises unknown code %s", s.Name, c)
			}
		}
		if s.Limb {
			for _, n := range []string{"limbId"} {
				if _, ok := s.Field(n); !ok {
					t.Errorf("limb op %s does not take %s", s.Name, n)
				}
			}
		}
	}
}

func TestCheckRefusesWhatDoesNotApply(t *testing.T) {
	cases := []struct {
		line  string
		field string // "" = accepted
	}{
		{`{"op":"clipboard","limbId":"l","action":"get","text":"x"}`, "text"},
		{`{"op":"clipboard","limbId":"l","action":"set","text":"x"}`, ""},
		{`{"op":"control","limbId":"l","action":"release","waitMs":5}`, "waitMs"},
		{`{"op":"control","limbId":"l","action":"acquire","waitMs":5}`, ""},
		{`{"op":"wait","limbId":"l","until":"idle","quietMs":-5}`, "quietMs"},
		{`{"op":"click","limbId":"l","action":"click","direction":"up"}`, "direction"},
		{`{"op":"status","limbId":"l","path":"/x"}`, "path"},
		{`{"op":"ping","name":"me","token":"t","session":"s"}`, ""},
		{`{"op":"files","limbId":"l","action":"bogus"}`, "action"},
		// Required fields, for the variants they are required in.
		{`{"op":"click","limbId":"l","action":"move","x":5}`, "y is required"},
		{`{"op":"click","limbId":"l","action":"drag","x":5,"y":5,"toX":5}`, "drag needs toY"},
		{`{"op":"click","limbId":"l","x":5,"y":5}`, "action is required: move, click, double, right, middle, drag or scroll"},
		{`{"op":"clipboard","limbId":"l","action":"set"}`, "set needs text"},
		{`{"op":"clipboard","limbId":"l","action":"get"}`, ""},
		{`{"op":"files","limbId":"l","action":"list"}`, ""},
		{`{"op":"files","limbId":"l","action":"rename","path":"/a"}`, "rename needs to"},
		{`{"op":"wait","limbId":"l","until":"text"}`, "until text needs text"},
		{`{"op":"run","limbId":"l","command":"true"}`, "timeoutMs is required (run has no default deadline)"},
		{`{"op":"share","limbId":"l"}`, ""},
		// Closed value sets.
		{`{"op":"screen","limbId":"l","format":"gif"}`, `format "gif" is not one of png, jpeg, auto`},
		{`{"op":"click","limbId":"l","action":"scroll","x":5,"y":5,"direction":"sideways"}`, "direction"},
		{`{"op":"click","limbId":"l","action":"scroll","x":5,"y":5,"direction":"up"}`, ""},
		{`{"op":"click","limbId":"l","action":"move","x":5,"y":5,"generationFrom":"first-read"}`, "generationFrom"},
	}
	for _, c := range cases {
		var head Envelope
		if err := json.Unmarshal([]byte(c.line), &head); err != nil {
			t.Fatal(err)
		}
		s, _ := Spec(head.OpName)
		a, err := s.DecodeLine([]byte(c.line))
		if err == nil {
			err = s.Check(a)
		}
		if err == nil {
			err = s.CheckRequired(a)
		}
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%s: refused: %v", c.line, err)
		case c.field != "" && (err == nil || err.Code != BadRequest || !strings.Contains(err.Message, c.field)):
			t.Errorf("%s: want BAD_REQUEST naming %s, got %v", c.line, c.field, err)
		}
	}
}

// TestProtocolTable: names are unique and each protocol has a kind and a
// default port; the choice text lists them all.
func TestProtocolTable(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Protocols {
		if seen[p.Name] || (p.Kind != KindDesktop && p.Kind != KindTerminal) || p.DefaultPort <= 0 {
			t.Errorf("bad protocol entry %+v", p)
		}
		seen[p.Name] = true
	}
	if got := ProtocolChoice(); got != "vnc, rdp or ssh" {
		t.Errorf("ProtocolChoice = %q", got)
	}
	if got := DefaultPorts(); got != "5900 vnc, 3389 rdp, 22 ssh" {
		t.Errorf("DefaultPorts = %q", got)
	}
}

// TestKindBoundOps: an op bound to a kind addresses a limb, is refused
// with a code it declares, and names a kind some protocol has.
func TestKindBoundOps(t *testing.T) {
	for _, s := range Ops() {
		if s.Kind == "" {
			continue
		}
		if !s.Limb {
			t.Errorf("%s is bound to %s limbs but addresses none", s.Name, s.Kind)
		}
		if !s.CanRaise(WrongProtocol) {
			t.Errorf("%s is bound to %s limbs but does not declare WRONG_PROTOCOL", s.Name, s.Kind)
		}
		if len(ProtocolsOfKind(s.Kind)) == 0 {
			t.Errorf("%s is bound to kind %q, which no protocol has", s.Name, s.Kind)
		}
		other := KindDesktop
		if s.Kind == KindDesktop {
			other = KindTerminal
		}
		if s.CheckKind("x", s.Kind, "") != nil || s.CheckKind("x", other, "") == nil {
			t.Errorf("%s: CheckKind does not follow Kind %s", s.Name, s.Kind)
		}
	}
}

// TestVariantKinds: a variant bound to a kind is one of the op's variants,
// on an op that takes any limb and declares WRONG_PROTOCOL; only that
// variant is refused on the other kind.
func TestVariantKinds(t *testing.T) {
	for _, s := range Ops() {
		for v, k := range s.VariantKinds {
			if !s.HasVariant(v) || s.Kind != "" || !s.CanRaise(WrongProtocol) || len(ProtocolsOfKind(k)) == 0 {
				t.Errorf("%s: variant %q bound to %q (variant known: %v, op kind %q)", s.Name, v, k, s.HasVariant(v), s.Kind)
			}
			other := KindDesktop
			if k == KindDesktop {
				other = KindTerminal
			}
			if s.CheckKind("x", k, v) != nil || s.CheckKind("x", other, v) == nil {
				t.Errorf("%s %s: CheckKind does not follow its kind %s", s.Name, v, k)
			}
			for _, w := range s.Variants {
				if _, bound := s.VariantKinds[w]; !bound && s.CheckKind("x", other, w) != nil {
					t.Errorf("%s %s: refused on a %s although only %s is bound", s.Name, w, other, v)
				}
			}
		}
	}
}

// TestNoAttachMatchesSpecs: NoAttach, which answers without building the
// table, agrees with every op's spec, and knows no op the table lacks.
func TestNoAttachMatchesSpecs(t *testing.T) {
	for _, s := range Ops() {
		if NoAttach(s.Name) != s.NoAttach {
			t.Errorf("NoAttach(%q) = %v, its spec says %v", s.Name, NoAttach(s.Name), s.NoAttach)
		}
	}
	if NoAttach("no_such_op") {
		t.Error("NoAttach is true for an op that does not exist")
	}
}

// TestListedOpsPerKind: what a limb summary lists comes from the spec's
// ListedOn and Perceives: a desktop's input and clipboard ops, a
// terminal's shell ops, run and files on both (a desktop's over its SSH
// sidecar), and screen on a desktop only when it perceives.
func TestListedOpsPerKind(t *testing.T) {
	for _, c := range []struct {
		kind     string
		perceive bool
		want     []string
	}{
		{KindDesktop, true, []string{"status", "signals", "click", "type", "key", "screen", "wait", "clipboard", "run", "files"}},
		{KindDesktop, false, []string{"status", "signals", "click", "type", "key", "wait", "clipboard", "run", "files"}},
		{KindTerminal, false, []string{"status", "signals", "screen", "wait", "run", "term_read", "term_send", "files"}},
	} {
		if got := Builtin().Listed(c.kind, c.perceive); !slices.Equal(got, c.want) {
			t.Errorf("%s (perceive %v) lists %v, want %v", c.kind, c.perceive, got, c.want)
		}
	}
}

// TestActsAreRecorded: every act (an op that dispatches input) goes into
// a recording's act log.
func TestActsAreRecorded(t *testing.T) {
	for _, s := range Ops() {
		if s.Dispatches && !s.Recorded {
			t.Errorf("act %s is not recorded", s.Name)
		}
	}
}
