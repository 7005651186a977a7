package mcp

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// OutputSchema is the JSON Schema of the tool's structuredContent, generated
// from the Go types that produce it (wire.Response and the bridge's
// wrappers), so it cannot drift from what is sent: a success is dvvd's
// answer with result set to the tool's op; a failure is {error, observation}.
func (t *Tool) OutputSchema() map[string]any {
	outSchemaOnce.Do(buildOutSchemas)
	success := map[string]any{"allOf": []any{
		map[string]any{"$ref": "#/$defs/" + successDef},
		map[string]any{"properties": map[string]any{"result": map[string]any{"const": t.Op}}, "required": []string{"result"}},
	}}
	return map[string]any{
		"type":  "object",
		"anyOf": []any{success, map[string]any{"$ref": "#/$defs/" + errorDef}},
		"$defs": outDefs,
	}
}

var (
	outSchemaOnce sync.Once
	outDefs       map[string]any
	successDef    string
	errorDef      string
)

func buildOutSchemas() {
	g := &schemaGen{defs: map[string]any{}}
	successDef = g.def(reflect.TypeOf(structured{}))
	errorDef = g.def(reflect.TypeOf(errorContent{}))
	outDefs = g.defs
}

// schemaGen turns Go types into JSON Schema the way encoding/json encodes
// them: struct fields by their json names (embedded structs inlined),
// omitempty fields optional, nil pointers and slices without omitempty as
// null. Named struct types become $defs, which also covers recursion
// (group_run members hold answers).
type schemaGen struct {
	defs map[string]any
}

var rawMessage = reflect.TypeOf(json.RawMessage(nil))

func (g *schemaGen) def(t reflect.Type) string {
	name := t.Name()
	if _, done := g.defs[name]; done {
		return name
	}
	g.defs[name] = true // placeholder: a recursive reference finds it
	g.defs[name] = g.structSchema(t)
	return name
}

func (g *schemaGen) structSchema(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []string
	g.fields(t, props, &required)
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func (g *schemaGen) fields(t reflect.Type, props map[string]any, required *[]string) {
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
				g.fields(et, props, required)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		optional := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
		props[name] = g.schema(f.Type, !optional)
		if !optional && f.Type.Kind() != reflect.Pointer {
			*required = append(*required, name)
		}
	}
}

// schema is t's schema; nullable adds null where encoding/json writes null
// for a nil value.
func (g *schemaGen) schema(t reflect.Type, nullable bool) map[string]any {
	if t == rawMessage {
		return map[string]any{}
	}
	if t.Implements(reflect.TypeOf((*json.Marshaler)(nil)).Elem()) {
		return map[string]any{}
	}
	var s map[string]any
	switch t.Kind() {
	case reflect.Pointer:
		return g.schema(t.Elem(), nullable)
	case reflect.Struct:
		s = map[string]any{"$ref": "#/$defs/" + g.def(t)}
		if nullable {
			return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
		}
		return s
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			s = map[string]any{"type": "string"} // base64
		} else {
			s = map[string]any{"type": "array", "items": g.schema(t.Elem(), false)}
		}
	case reflect.Map:
		s = map[string]any{"type": "object", "additionalProperties": g.schema(t.Elem(), false)}
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
	if nullable && (t.Kind() == reflect.Slice || t.Kind() == reflect.Map) {
		s["type"] = []any{s["type"], "null"}
	}
	return s
}
