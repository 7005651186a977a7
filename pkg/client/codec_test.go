package client

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/dvvhq/dvv/pkg/wire"
)

// fill sets fields of v (recursively) from r: about half of them, so that
// omitempty and omitzero are exercised both ways.
func fill(v reflect.Value, r *rand.Rand, depth int) {
	if depth > 4 || !v.CanSet() {
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(r.IntN(5)) - 1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(r.IntN(4)))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(r.IntN(7)) / 4)
	case reflect.String:
		v.SetString([]string{"", "x", "<a&b>", "é\u2028", "dvv_secret"}[r.IntN(5)])
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[json.RawMessage]() {
			v.SetBytes([]byte([]string{`7`, `"a"`, `{"k":[1,2]}`}[r.IntN(3)]))
			return
		}
		n := r.IntN(3)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fill(s.Index(i), r, depth+1)
		}
		v.Set(s)
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), r, depth+1)
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for range r.IntN(3) {
			k := reflect.New(v.Type().Key()).Elem()
			fill(k, r, depth+1)
			e := reflect.New(v.Type().Elem()).Elem()
			fill(e, r, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Pointer:
		if r.IntN(3) == 0 {
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), r, depth+1)
		v.Set(p)
	case reflect.Struct:
		if v.Type().PkgPath() == "time" {
			return
		}
		for i := range v.NumField() {
			if r.IntN(2) == 0 {
				fill(v.Field(i), r, depth+1)
			}
		}
	case reflect.Interface:
		if r.IntN(2) == 0 {
			v.Set(reflect.ValueOf("any"))
		}
	}
}

func TestDecodeResponseIsJSONUnmarshal(t *testing.T) {
	for seed := range uint64(500) {
		r := rand.New(rand.NewPCG(seed, 2))
		var resp wire.Response
		fill(reflect.ValueOf(&resp).Elem(), r, 0)
		line, err := json.Marshal(&resp)
		if err != nil {
			t.Fatal(err)
		}
		sameDecode(t, line)
	}
	for _, line := range codecSeeds {
		sameDecode(t, []byte(line))
	}
}

// codecSeeds are answers as dvvd writes them and the odd cases a hostile
// or broken peer could send.
var codecSeeds = []string{
	`{"result":"ping","id":2}`,
	`{"result":"attach","id":1,"daemon":{"version":"0.1.0","id":"default","pid":42,"attachment":"shell","role":"owner"}}`,
	`{"result":"error","id":3,"code":"LIMB_GONE","message":"gone","next":"open it again"}`,
	`{"result":"error","code":"BUSY","message":"too many"}`,
	`  {"Result":"ping","ID":"a"}  `,
	`{"result":"ping","result":"attach"}`,
	`{"daemon":{"pid":1},"daemon":{"version":"v"}}`,
	`{"result":1,"id":2}`,
	`{"daemon":{"pid":"x"},"result":"ping"}`,
	`{"result":"ping"} {}`,
	`{"result":"ping",}`,
	`{"result" "ping"}`,
	`{"unknown":[1,{"a":null}],"result":"ping"}`,
	`{"result":null,"daemon":null}`,
	`null`, `[]`, `"x"`, `7`, ``, `{`, `}`, `{"result":"\u212a\ud800"}`, `{"\u212aey":1}`,
}

func sameDecode(t *testing.T, line []byte) {
	t.Helper()
	var want, got wire.Response
	werr := json.Unmarshal(line, &want)
	gerr := decodeResponse(line, &got)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%q: encoding/json says %v, decodeResponse %v", line, werr, gerr)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\ndecodeResponse %+v\nencoding/json  %+v", line, got, want)
	}
}

func FuzzDecodeResponse(f *testing.F) {
	for _, s := range codecSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) { sameDecode(t, line) })
}
