package daemon

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/dvvhq/dvv/internal/wiretest"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestAnswerLineIsTheResponseLine: for every op, an answer with every
// field set, written straight from its struct with an id, is byte for
// byte the line the same answer made as a Response; so is a bare one, and
// ids that JSON escapes.
func TestAnswerLineIsTheResponseLine(t *testing.T) {
	ids := []json.RawMessage{nil, json.RawMessage(`7`), json.RawMessage(`"a<b&c"`), json.RawMessage(`-1.5e3`)}
	for _, s := range wire.Ops() {
		for _, full := range []bool{false, true} {
			a := reflect.New(s.AnswerType)
			if full {
				fill(a.Elem(), 0)
			}
			ans := a.Interface().(wire.Answer)
			for _, id := range ids {
				got, err := wire.AnswerLine(id, ans)
				if err != nil {
					t.Fatal(err)
				}
				r := responseOf(ans)
				r.ID = id
				want, err := json.Marshal(r)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("%s (full %v, id %s):\n got %s\nwant %s", s.Name, full, id, got, want)
				}
			}
		}
	}
}

// responseOf is an answer as a Response: result set to its op, its
// fields copied by Go name (the answer's are Response's, TestAnswersMatchSpec).
func responseOf(a wire.Answer) *wiretest.Response {
	v := reflect.ValueOf(a)
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	r := &wiretest.Response{Result: a.Op()}
	rv := reflect.ValueOf(r).Elem()
	for _, f := range reflect.VisibleFields(v.Type()) {
		rv.FieldByName(f.Name).Set(v.FieldByIndex(f.Index))
	}
	return r
}

// fill sets every field of v to a non-zero value, nested structs, slices
// and maps included, a few levels deep.
func fill(v reflect.Value, depth int) {
	if depth > 4 {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("s<&>")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(3)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(4)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), depth+1)
			}
		}
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[json.RawMessage]() {
			v.SetBytes([]byte(`{"k":1}`))
			return
		}
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0), depth+1)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, depth+1)
		fill(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	}
}
