package daemon

import (
	"bytes"
	"encoding/json"
)

// duplicateKey finds a key given twice in one JSON object anywhere in a
// request line. encoding/json keeps the last value silently, so
// {"op":"ping","op":"shutdown"} would mean what a log or a proxy that reads
// the first one does not expect.
func duplicateKey(line []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	type frame struct {
		keys   map[string]bool // nil for an array
		expect bool            // the next token in an object is a key
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false // malformed JSON is reported by the real decode
		}
		top := len(stack) - 1
		if top >= 0 && stack[top].keys != nil && stack[top].expect {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:top]
			} else {
				k, _ := tok.(string)
				if stack[top].keys[k] {
					return k, true
				}
				stack[top].keys[k] = true
				stack[top].expect = false
				continue
			}
		} else {
			switch tok {
			case json.Delim('{'):
				stack = append(stack, frame{keys: map[string]bool{}, expect: true})
				continue
			case json.Delim('['):
				stack = append(stack, frame{})
				continue
			case json.Delim(']'):
				stack = stack[:top]
			}
		}
		// A value (or a closed container) ends; its parent object now
		// expects a key.
		if top = len(stack) - 1; top >= 0 && stack[top].keys != nil {
			stack[top].expect = true
		}
		if len(stack) == 0 {
			return "", false
		}
	}
}

// scalarID reports whether a request id is a JSON string or number (ids are
// documented as scalars; an object or array would be echoed verbatim).
func scalarID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	if len(id) == 0 {
		return true
	}
	switch c := id[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return true
	}
	return false
}

func jsonKind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	switch {
	case len(v) == 0:
		return "nothing"
	case v[0] == '{':
		return "an object"
	case v[0] == '[':
		return "an array"
	case v[0] == 't' || v[0] == 'f':
		return "a boolean"
	case v[0] == 'n':
		return "null"
	}
	return "that"
}
