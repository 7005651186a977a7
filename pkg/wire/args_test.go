package wire

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// TestArgsMatchSpec: every op names an Args type whose JSON fields are
// exactly its spec's Fields, which embeds the Envelope, and whose Op() is
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
		if _, ok := reflect.New(s.Args).Interface().(Enveloped); !ok {
			t.Errorf("%v does not embed the Envelope", s.Args)
		}
		a, ok := reflect.New(s.Args).Elem().Interface().(Args)
		if !ok || a.Op() != s.Name {
			t.Errorf("%v does not say it is op %s", s.Args, s.Name)
		}
	}
}

// TestArgsRoundTrip: typed arguments make the socket line the flat
// request of old made (this line), and the line comes back into the typed
// struct whole.
func TestArgsRoundTrip(t *testing.T) {
	x, y, m := 3, 4, 0
	var gen uint64 = 9
	a := ClickArgs{Target: Target{GroupID: "g", Member: &m}, Action: "drag", X: &x, Y: &y, ToX: &y, Generation: &gen, Modifiers: []string{"ctrl"}}
	want := `{"op":"click","groupId":"g","member":0,"action":"drag","generation":9,"x":3,"y":4,"toX":4,"modifiers":["ctrl"]}`
	got, _ := json.Marshal(Envelop(a))
	if string(got) != want {
		t.Fatalf("the line:\n got %s\nwant %s", got, want)
	}
	back, err := argsOfLine([]byte(want))
	if err != nil || !reflect.DeepEqual(back, &a) {
		t.Fatalf("the line decoded: %+v %v", back, err)
	}
	// An op without fields sends only its name.
	if got, _ := json.Marshal(Envelop(PingArgs{})); string(got) != `{"op":"ping"}` {
		t.Fatalf("ping: %s", got)
	}
}

// TestEveryOpRoundTrips: for each op, Args carrying every field the op
// takes (each set to a non-zero value) make a line that decodes back into
// the same Args, so the line loses nothing for any op.
func TestEveryOpRoundTrips(t *testing.T) {
	for i := range Ops() {
		s := &Ops()[i]
		a := reflect.New(s.Args)
		for _, f := range s.Fields {
			fv, _ := FieldOf(a.Interface(), f.Name)
			fillNonZero(fv)
		}
		roundTrip(t, s, a.Interface().(Args))
	}
}

// roundTrip encodes a as a client does and decodes its line as dvvd does,
// and wants the same Args back (the envelope aside).
func roundTrip(t *testing.T, s *OpSpec, a Args) {
	t.Helper()
	line, err := json.Marshal(Envelop(a))
	if err != nil {
		t.Fatal(err)
	}
	back, err := argsOfLine(line)
	if err != nil {
		t.Fatalf("%s: %s: %v", s.Name, line, err)
	}
	if back.Op() != s.Name {
		t.Fatalf("%s: Args says op %s", s.Name, back.Op())
	}
	bare := Envelop(a)
	*bare.Head() = Envelope{}
	// Equal as lines: an empty list and none are the same on the wire
	// (`"modifiers":[]` is omitted when encoded), as Go values they are not.
	got, _ := json.Marshal(back)
	want, _ := json.Marshal(bare)
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

// FuzzLineToArgs: any line that decodes strictly into its op's Args and
// passes its op's Check encodes back into a line that decodes into the
// same Args (envelope aside), and the checks never panic.
func FuzzLineToArgs(f *testing.F) {
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
		var head Envelope
		if json.Unmarshal(line, &head) != nil {
			return
		}
		s, ok := Spec(head.OpName)
		if !ok {
			return
		}
		a, werr := s.DecodeLine(line)
		if werr != nil || s.Check(a) != nil || a.Head().OpName != s.Name {
			return
		}
		s.CheckRequired(a) // must not panic, whatever it says
		roundTrip(t, s, a)
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

// argsOfLine is a line as dvvd decodes it into its op's Args, less the
// envelope (which a typed caller leaves to the client).
func argsOfLine(line []byte) (Args, error) {
	var head Envelope
	if err := json.Unmarshal(line, &head); err != nil {
		return nil, err
	}
	s, ok := Spec(head.OpName)
	if !ok {
		return nil, fmt.Errorf("no op %q", head.OpName)
	}
	a, werr := s.DecodeLine(line)
	if werr != nil {
		return nil, werr
	}
	*a.Head() = Envelope{}
	return a, nil
}
