package mcp

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/dvvhq/dvv/pkg/wire"
)

// OutputSchema is the JSON Schema of the tool's structuredContent, read off
// its op's answer type in the op table (wire.OpSpec.AnswerType), so it
// cannot drift from what is sent. A success is result (the op) and the
// op's answer fields; a failure is result "error", error and, when dvvd sent
// one, the fresh observation.
//
// tools/list is paid in context on every turn and MCP gives tools no shared
// definitions, so the schema stays small: an answer object is described by
// its top-level fields, anything deeper as an object, and the observation,
// which nearly every tool can carry, by a pointer to its full schema in
// docs/tools.md (ObservationSchema).
func (t *Tool) OutputSchema() map[string]any {
	spec := t.Spec()
	props := map[string]any{
		"result":      map[string]any{"enum": []string{t.Op, wire.ResultError}},
		"error":       map[string]any{"type": "object"}, // fields stated once, in Instructions
		"observation": map[string]any{"type": "object"},
		"bridgeNote":  map[string]any{"type": "string"},
	}
	s := map[string]any{"type": "object", "properties": props, "required": []string{"result"}, "additionalProperties": false}
	if spec.AnswerType == nil {
		return s
	}
	g := &outGen{depth: answerDepth, uses: map[reflect.Type]int{}, defs: map[string]any{}, skip: t.frozen().answerFields}
	eachJSONField(spec.AnswerType, func(_ string, ft reflect.Type, _ bool) { g.count(ft) })
	eachJSONField(spec.AnswerType, func(name string, ft reflect.Type, _ bool) {
		props[name] = g.schema(ft, 0, false)
	})
	if len(g.defs) > 0 {
		s["$defs"] = g.defs
	}
	return s
}

// answerDepth is how many object levels of an answer are spelt out: the
// answer's own objects with their fields' types; deeper objects are
// "object".
const answerDepth = 1

var (
	observationType = reflect.TypeOf(wire.Observation{})
	rawMessage      = reflect.TypeOf(json.RawMessage(nil))
	marshaler       = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
)

// outGen writes one tool's output schema. An object type spelt out twice
// in it (hosts and discovered are both lists of hosts) goes in $defs once.
type outGen struct {
	depth int  // object levels spelt out
	full  bool // every level, the observation too (docs)
	uses  map[reflect.Type]int
	defs  map[string]any
	skip  []string // fields of the answer's objects the tool leaves out
}

// ObservationSchema is the full JSON Schema of the observation, which the
// tools' output schemas point to; docs/tools.md prints it.
func ObservationSchema() map[string]any {
	g := &outGen{depth: 16, full: true, uses: map[reflect.Type]int{}, defs: map[string]any{}}
	return g.schema(observationType, 0, false)
}

// spelt is the struct type t stands for when it is spelt out at depth 0:
// the struct itself, through pointers and list items.
func spelt(t reflect.Type) reflect.Type {
	for {
		switch {
		case t.Kind() == reflect.Pointer, (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && t.Elem().Kind() != reflect.Uint8:
			t = t.Elem()
		case t.Kind() == reflect.Struct && t != observationType && t != rawMessage && !t.Implements(marshaler):
			return t
		default:
			return nil
		}
	}
}

func (g *outGen) count(t reflect.Type) {
	if st := spelt(t); st != nil {
		g.uses[st]++
	}
}

// schema is t's schema as encoding/json writes it; depth counts the
// objects above it and nullable adds null where a nil value is written as
// null (a field without omitempty).
func (g *outGen) schema(t reflect.Type, depth int, nullable bool) map[string]any {
	if t == rawMessage || t.Implements(marshaler) {
		return map[string]any{}
	}
	k := t.Kind()
	orNull := nullable && (k == reflect.Slice || k == reflect.Map || k == reflect.Pointer)
	if k == reflect.Pointer {
		t = t.Elem()
	}
	var s map[string]any
	switch t.Kind() {
	case reflect.Struct:
		switch {
		case t == observationType && !g.full:
			s = map[string]any{"type": "object", "description": "docs/tools.md#observation"}
		case depth >= g.depth:
			s = map[string]any{"type": "object"}
		case g.uses[t] > 1:
			if _, done := g.defs[t.Name()]; !done {
				g.defs[t.Name()] = g.object(t, depth)
			}
			return map[string]any{"$ref": "#/$defs/" + t.Name()}
		default:
			s = g.object(t, depth)
		}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			s = map[string]any{"type": "string"} // base64
			break
		}
		s = map[string]any{"type": "array", "items": g.schema(t.Elem(), depth, false)}
	case reflect.Map:
		s = map[string]any{"type": "object"}
		if g.full {
			s["additionalProperties"] = g.schema(t.Elem(), depth+1, false)
		}
	case reflect.String:
		s = map[string]any{"type": "string"}
	case reflect.Bool:
		s = map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		s = map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		s = map[string]any{"type": "number"}
	default:
		return map[string]any{}
	}
	if typ, ok := s["type"].(string); ok && orNull {
		s["type"] = []string{typ, "null"}
	}
	return s
}

func (g *outGen) object(t reflect.Type, depth int) map[string]any {
	props := map[string]any{}
	eachJSONField(t, func(name string, ft reflect.Type, optional bool) {
		if !slices.Contains(g.skip, name) {
			props[name] = g.schema(ft, depth+1, !optional)
		}
	})
	return map[string]any{"type": "object", "properties": props}
}

// eachJSONField calls fn for every field of struct type t the way
// encoding/json encodes it: by json name, embedded structs inlined;
// optional is true for omitempty/omitzero fields.
func eachJSONField(t reflect.Type, fn func(name string, ft reflect.Type, optional bool)) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				eachJSONField(et, fn)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		fn(name, f.Type, strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero"))
	}
}
