package daemon

import (
	"encoding/json"
	"testing"
)

// TestLineOp: the op is read off a line whatever precedes it, and a line
// it cannot read plainly is left to the full decode.
func TestLineOp(t *testing.T) {
	for _, c := range []struct {
		line string
		op   string
		ok   bool
	}{
		{`{"op":"status","limbId":"l1"}`, "status", true},
		{` { "id" : [1,{"a":"}"}], "text":"a\"b", "region":{"x":1,"y":2}, "n":-3.5e2, "b":true, "op" : "click" }`, "click", true},
		{`{"limbId":"l1","op":"wait"}`, "wait", true},
		{`{"op":"cl\u0069ck"}`, "", false},
		{`{"op":5}`, "", false},
		{`{"limbId":"l1"}`, "", false},
		{`["op","ping"]`, "", false},
		{`{"text":"unclosed}`, "", false},
		{``, "", false},
	} {
		op, ok := lineOp([]byte(c.line))
		if string(op) != c.op || ok != c.ok {
			t.Errorf("lineOp(%s) = %q, %v; want %q, %v", c.line, op, ok, c.op, c.ok)
		}
	}
}

func FuzzLineOp(f *testing.F) {
	f.Add([]byte(`{"op":"status","limbId":"l1"}`))
	f.Add([]byte(`{"x":[{"y":"\"}"}],"op":"ping"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		op, ok := lineOp(line)
		if ok && len(op) == 0 {
			t.Fatalf("lineOp(%q) found an empty op", line)
		}
		var env struct {
			Op string `json:"op"`
		}
		if _, dup := duplicateKey(line); ok && !dup && json.Unmarshal(line, &env) == nil && env.Op != string(op) {
			t.Fatalf("lineOp(%q) = %q, the decoder reads %q", line, op, env.Op)
		}
	})
}
