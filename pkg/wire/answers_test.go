package wire_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/wiretest"
	. "github.com/dvvhq/dvv/pkg/wire"
)

// Response is the flat union of every answer field, as tests read any
// line: each answer type is held to it.
type Response = wiretest.Response

// jsonName is a field's JSON name.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

// responseFields maps Response's JSON names to its fields.
func responseFields() map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[Response]()) {
		out[jsonName(f)] = f
	}
	return out
}

// TestAnswersMatchSpec: every op names an answer type whose fields are
// exactly its spec's AnswerFields, each with Response's Go name, type and
// JSON tag (so r.Screen reads the same on either), and which says it is
// its op's. No drift between the answer structs and the table is possible.
func TestAnswersMatchSpec(t *testing.T) {
	resp := responseFields()
	for i := range Ops() {
		s := &Ops()[i]
		if s.AnswerType == nil {
			t.Errorf("%s has no answer type: run `make docs` (internal/gen/args)", s.Name)
			continue
		}
		want := s.AnswerFields()
		for _, n := range want {
			if _, ok := resp[n]; !ok {
				t.Errorf("%s answers %q, which Response does not have", s.Name, n)
			}
			if n == "result" || n == "id" || n == "code" || n == "message" || n == "next" || n == "cause" {
				t.Errorf("%s lists %q, which every answer line carries", s.Name, n)
			}
		}
		if sorted := slices.Sorted(slices.Values(want)); len(slices.Compact(sorted)) != len(want) {
			t.Errorf("%s lists an answer field twice: %v", s.Name, want)
		}
		got := ArgsFields(s.AnswerType)
		if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
			t.Errorf("%s: %v has fields %v, its spec %v: run `make docs`", s.Name, s.AnswerType, got, want)
		}
		for _, f := range reflect.VisibleFields(s.AnswerType) {
			rf := resp[jsonName(f)]
			if f.Name != rf.Name || f.Type != rf.Type || f.Tag != rf.Tag {
				t.Errorf("%v.%s %v `%s` is not Response.%s %v `%s`", s.AnswerType, f.Name, f.Type, f.Tag, rf.Name, rf.Type, rf.Tag)
			}
		}
		a, ok := reflect.New(s.AnswerType).Interface().(Answer)
		if !ok || a.Op() != s.Name || responseOf(a).Result != s.Name {
			t.Errorf("%v does not say it is op %s's answer", s.AnswerType, s.Name)
		}
	}
}

// populate fills v with non-zero values, nested values included (up to a
// depth, as a group_run member's answer holds a Response).
func populate(v reflect.Value, depth int) {
	if depth > 3 {
		return
	}
	if v.Type() == reflect.TypeFor[json.RawMessage]() {
		v.SetBytes([]byte(`"7"`))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("x" + v.Type().Name())
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		populate(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			populate(s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		populate(k, depth+1)
		populate(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				populate(v.Field(i), depth+1)
			}
		}
	}
}

// responseOf is an answer as a Response: result set to its op, its
// fields copied by Go name (the answer's are Response's, TestAnswersMatchSpec).
func responseOf(a Answer) *Response {
	v := reflect.ValueOf(a)
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	r := &Response{Result: a.Op()}
	rv := reflect.ValueOf(r).Elem()
	for _, f := range reflect.VisibleFields(v.Type()) {
		rv.FieldByName(f.Name).Set(v.FieldByIndex(f.Index))
	}
	return r
}

func mustLine(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestAnswerLinesAreResponseLines: for every op, an answer with every
// field set makes the very line a Response with those fields made; the
// line read back into the answer type gives the same
// answer; and the struct encoded directly is the line without its result.
func TestAnswerLinesAreResponseLines(t *testing.T) {
	for i := range Ops() {
		s := &Ops()[i]
		av := reflect.New(s.AnswerType)
		populate(av.Elem(), 0)
		a := av.Interface().(Answer)

		want := &Response{Result: s.Name}
		rv := reflect.ValueOf(want).Elem()
		for _, f := range reflect.VisibleFields(s.AnswerType) {
			rv.FieldByName(f.Name).Set(av.Elem().FieldByIndex(f.Index))
		}
		line := mustLine(t, responseOf(a))
		if wantLine := mustLine(t, want); !bytes.Equal(line, wantLine) {
			t.Errorf("%s: the answer makes\n%s\nthe Response\n%s", s.Name, line, wantLine)
		}
		if len(s.AnswerFields()) > 0 && bytes.Equal(line, mustLine(t, &Response{Result: s.Name})) {
			t.Errorf("%s: a populated answer made a bare line %s", s.Name, line)
		}

		read, ok := reflect.New(s.AnswerType).Interface().(Answer)
		if !ok {
			t.Fatalf("%s: %v is not an Answer", s.Name, s.AnswerType)
		}
		if err := json.Unmarshal(line, read); err != nil {
			t.Fatal(err)
		}
		if got := mustLine(t, responseOf(read)); !bytes.Equal(got, line) {
			t.Errorf("%s: read back, the answer makes\n%s\nnot\n%s", s.Name, got, line)
		}
		direct := mustLine(t, a)
		bare := bytes.TrimPrefix(line, mustLine(t, &Response{Result: s.Name})[:len(`{"result":"`+s.Name+`"`)])
		if !bytes.Equal(bytes.TrimPrefix(bare, []byte(",")), bytes.TrimPrefix(direct, []byte("{"))) {
			t.Errorf("%s: encoded directly %s, on its line %s", s.Name, direct, line)
		}
	}
}

// BenchmarkAnswerResponse is what a typed answer costs a request in
// dvvd: a status answer written as its line.
func BenchmarkAnswerResponse(b *testing.B) {
	a := &StatusAnswer{LimbID: "l1", Observation: &Observation{}}
	b.ReportAllocs()
	for b.Loop() {
		answerSink, _ = AnswerLine(json.RawMessage(`7`), a) // kept, as dvvd keeps the line until it is written
	}
	if !bytes.Contains(answerSink, []byte(`"observation"`)) {
		b.Fatal("lost the observation")
	}
}

var answerSink []byte

// FuzzReadAnswer: any answer line a client decodes reads as its op's
// answer, whose own line holds only result and the op's declared fields,
// and reads back to the same line.
func FuzzReadAnswer(f *testing.F) {
	for i := range Ops() {
		av := reflect.New(Ops()[i].AnswerType)
		populate(av.Elem(), 0)
		line, _ := json.Marshal(responseOf(av.Interface().(Answer)))
		f.Add(line)
	}
	f.Add([]byte(`{"result":"screen","screen":{"mime":"image/png"},"lease":{},"limbs":[]}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var r Response
		if json.Unmarshal(line, &r) != nil {
			return
		}
		a, ok := readAnswer(&r, line)
		if !ok {
			return
		}
		once := mustLine(t, responseOf(a))
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(once, &fields); err != nil {
			t.Fatal(err)
		}
		s, _ := Spec(r.Result)
		for k := range fields {
			if k != "result" && !slices.Contains(s.AnswerFields(), k) {
				t.Fatalf("%s's answer line carries %q, which it does not declare: %s", r.Result, k, once)
			}
		}
		var back Response
		if err := json.Unmarshal(once, &back); err != nil {
			t.Fatal(err)
		}
		again, _ := readAnswer(&back, once)
		if twice := mustLine(t, responseOf(again)); !bytes.Equal(once, twice) {
			t.Fatalf("read back:\n%s\nnot\n%s", twice, once)
		}
	})
}

// readAnswer reads a success line as the answer of the op its result
// names; false for a failure or a result no op of this build knows.
func readAnswer(r *Response, line []byte) (Answer, bool) {
	s, ok := Spec(r.Result)
	if !ok || s.AnswerType == nil {
		return nil, false
	}
	a := reflect.New(s.AnswerType).Interface().(Answer)
	return a, json.Unmarshal(line, a) == nil
}
