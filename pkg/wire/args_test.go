package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// TestArgsMatchSpec: every op names an Args type whose JSON fields are
// exactly its spec's Fields, each with Request's Go type, and whose Op() is
// the op. No drift between the typed structs and the table is possible.
func TestArgsMatchSpec(t *testing.T) {
	for i := range Ops() {
		s := &Ops()[i]
		if s.Args == nil {
			t.Errorf("%s has no Args type: run `make docs` (internal/gen/args)", s.Name)
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
	back, err := argsOfLine(flat)
	if err != nil || !reflect.DeepEqual(back, &a) {
		t.Fatalf("the line decoded: %+v %v", back, err)
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

// TestEveryOpRoundTrips: for each op, a request carrying every field the
// op takes (each set to a non-zero value) comes back from its Args
// unchanged, so the projection loses nothing for any op.
func TestEveryOpRoundTrips(t *testing.T) {
	for i := range Ops() {
		s := &Ops()[i]
		req := &Request{Op: s.Name}
		rv := reflect.ValueOf(req).Elem()
		for _, f := range s.Fields {
			fv := rv.Field(requestFields()[f.Name])
			fillNonZero(fv)
		}
		roundTrip(t, s, req)
	}
}

// roundTrip projects req into s's Args and back and wants the same line,
// less the envelope (which no Args carries).
func roundTrip(t *testing.T, s *OpSpec, req *Request) {
	t.Helper()
	a, err := argsOfLine(req)
	if err != nil {
		t.Fatal(err)
	}
	if a.Op() != s.Name {
		t.Fatalf("%s: Args says op %s", s.Name, a.Op())
	}
	bare := *req
	bare.ID, bare.Name, bare.Token, bare.Session = nil, "", "", ""
	want, _ := json.Marshal(&bare)
	got, _ := json.Marshal(RequestOf(a))
	if string(got) != string(want) {
		t.Fatalf("%s round trip:\n got %s\nwant %s", s.Name, got, want)
	}
}

func fillNonZero(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("s")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(1)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillNonZero(v.Elem())
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[json.RawMessage]() {
			v.SetBytes([]byte(`"x"`))
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fillNonZero(v.Index(0))
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fillNonZero(v.Field(i))
			}
		}
	case reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Uint64:
		v.SetUint(7)
	}
}

// FuzzRequestToArgs: any line that decodes strictly into a Request and
// passes its op's Check projects into the op's Args and back into the
// same request (envelope aside), and the checks never panic.
func FuzzRequestToArgs(f *testing.F) {
	for _, seed := range []string{
		`{"op":"click","limbId":"l","action":"drag","x":1,"y":2,"toX":3,"toY":4,"modifiers":["ctrl"]}`,
		`{"op":"screen","groupId":"g","member":0,"form":"region","region":{"x":0,"y":0,"w":5,"h":5}}`,
		`{"op":"group_run","groupId":"g","action":"type","arguments":{"text":"hi"}}`,
		`{"op":"files","limbId":"l","action":"put","path":"/p","contentBase64":"aGk=","mode":420}`,
		`{"op":"wait","limbId":"l","until":"text","text":"","timeoutMs":0}`,
		`{"op":"cancel","cancels":7}`,
		`{"op":"hello","name":"n","token":"t","session":"s"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var req Request
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if dec.Decode(&req) != nil {
			return
		}
		s, ok := Spec(req.Op)
		if !ok || s.Check(&req) != nil {
			return
		}
		s.CheckRequired(&req) // must not panic, whatever it says
		roundTrip(t, s, &req)
	})
}

// BenchmarkDecodeLine is what dvvd does with a click's line: decode it
// straight into ClickArgs, envelope included.
func BenchmarkDecodeLine(b *testing.B) {
	line := []byte(`{"op":"click","id":7,"limbId":"l","action":"click","x":10,"y":20}`)
	s, _ := Spec(OpClick)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.DecodeLine(line); err != nil {
			b.Fatal(err)
		}
	}
}

// argsOfLine is req's line as dvvd decodes it into its op's Args, less
// the envelope (which a typed caller leaves to the client).
func argsOfLine(req *Request) (Args, error) {
	s, ok := Spec(req.Op)
	if !ok {
		return nil, fmt.Errorf("no op %q", req.Op)
	}
	line, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	a, werr := s.DecodeLine(line)
	if werr != nil {
		return nil, werr
	}
	*a.Head() = Envelope{}
	return a, nil
}
