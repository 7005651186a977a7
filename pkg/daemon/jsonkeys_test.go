package daemon

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDuplicateKey(t *testing.T) {
	for _, tc := range []struct {
		line string
		key  string
	}{
		{`{"op":"ping"}`, ""},
		{`{"op":"ping","op":"shutdown"}`, "op"},
		{`{"op":"host_add","host":{"name":"a","address":"x","address":"y"}}`, "address"},
		{`{"op":"group_run","arguments":{"text":"a"},"action":"type"}`, ""},
		{`{"op":"group_run","arguments":{"text":"a","text":"b"}}`, "text"},
		{`{"a":[{"x":1},{"x":2}],"b":{"x":{}},"c":[]}`, ""},
		{`{"a":[{"x":1,"x":2}]}`, "x"},
		{`{"a":{},"a":[]}`, "a"},
		{`{"op":`, ""},
		{`[1,2,{"k":1,"k":2}]`, "k"},
	} {
		k, dup := duplicateKey([]byte(tc.line))
		if k != tc.key || dup != (tc.key != "") {
			t.Errorf("%s: got %q %v, want %q", tc.line, k, dup, tc.key)
		}
	}
}

func TestRequestIDsAreScalars(t *testing.T) {
	d := startDaemon(t, Config{})
	c := dialRaw(t, d)
	for _, line := range []string{`{"op":"ping","id":{"a":1}}`, `{"op":"ping","id":[1]}`, `{"op":"ping","id":true}`,
		`{"op":"ping","op":"shutdown"}`} {
		r := c.roundTrip(t, line)
		if r.Code != "BAD_REQUEST" || len(r.ID) != 0 {
			t.Errorf("%s: %+v", line, r)
		}
	}
	for _, tc := range []struct{ line, id string }{{`{"op":"ping","id":7}`, "7"}, {`{"op":"ping","id":"x"}`, `"x"`}, {`{"op":"ping","id":null}`, ""}} {
		if r := c.roundTrip(t, tc.line); r.Result != "ping" || string(r.ID) != tc.id {
			t.Errorf("%s: %+v", tc.line, r)
		}
	}
}

func FuzzDuplicateKey(f *testing.F) {
	for _, s := range []string{`{"op":"ping"}`, `{"a":{"b":[1,{"c":2}]},"a":1}`, `[[[]]]`, `{"x":"\u0000"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, dup := duplicateKey([]byte(s))
		if !dup {
			return
		}
		// A duplicate was found: the line is JSON up to that point, and the
		// key occurs at least twice in it.
		var m any
		if json.Unmarshal([]byte(s), &m) == nil && !strings.Contains(s, `\`) && countKey(s, k) < 2 {
			t.Fatalf("%q: reported duplicate %q", s, k)
		}
	})
}

// countKey counts occurrences of the JSON-encoded key in s.
func countKey(s, k string) int {
	b, _ := json.Marshal(k)
	n := 0
	for i := 0; i+len(b) <= len(s); i++ {
		if s[i:i+len(b)] == string(b) {
			n++
		}
	}
	return n
}
