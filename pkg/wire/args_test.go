package wire

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

// TestArgsMatchSpec: every op names an Args type whose JSON fields are
// exactly its spec's Fields, each with Request's Go type, and whose Op() is
// the op. No drift between the typed structs and the table is possible.
func TestArgsMatchSpec(t *testing.T) {
	for i := range Ops {
		s := &Ops[i]
		if s.Args == nil {
			t.Errorf("%s has no Args type: run `make docs` (internal/genargs)", s.Name)
			continue
		}
		var want []string
		for _, f := range s.Fields {
			want = append(want, f.Name)
		}
		got := ArgsFields(s.Args)
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: %v has fields %v, its spec %v: run `make docs`", s.Name, s.Args, got, want)
		}
		if _, err := makePlan(s.Args); err != nil {
			t.Error(err)
		}
		a, ok := reflect.New(s.Args).Elem().Interface().(Args)
		if !ok || a.Op() != s.Name {
			t.Errorf("%v does not say it is op %s", s.Args, s.Name)
		}
	}
}

// TestArgsRoundTrip: typed arguments become the same socket line a flat
// Request with those fields makes, and a request's fields come back into
// the typed struct whole.
func TestArgsRoundTrip(t *testing.T) {
	x, y, m := 3, 4, 0
	var gen uint64 = 9
	a := ClickArgs{Target: Target{GroupID: "g", Member: &m}, Action: "drag", X: &x, Y: &y, ToX: &y, Generation: &gen, Modifiers: []string{"ctrl"}}
	flat := &Request{Op: OpClick, GroupID: "g", Member: &m, Action: "drag", X: &x, Y: &y, ToX: &y, Generation: &gen, Modifiers: []string{"ctrl"}}
	got, _ := json.Marshal(RequestOf(a))
	want, _ := json.Marshal(flat)
	if string(got) != string(want) {
		t.Fatalf("RequestOf:\n got %s\nwant %s", got, want)
	}
	back, err := ArgsFrom[ClickArgs](flat)
	if err != nil || !reflect.DeepEqual(back, a) {
		t.Fatalf("ArgsFrom: %+v %v", back, err)
	}
	// An op without fields sends only its name.
	if got, _ := json.Marshal(RequestOf(PingArgs{})); string(got) != `{"op":"ping"}` {
		t.Fatalf("ping: %s", got)
	}
}

// TestArgsPlanRefusesStrangers: a struct with a field Request does not
// have, or with another Go type, cannot be an Args.
func TestArgsPlanRefusesStrangers(t *testing.T) {
	type unknownField struct {
		Colour string `json:"colour"`
	}
	type otherType struct {
		X string `json:"x"`
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[unknownField](), reflect.TypeFor[otherType]()} {
		if _, err := makePlan(typ); err == nil {
			t.Errorf("%v accepted", typ)
		}
	}
}
