package mcp

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/pkg/wire"
)

// TestSchemasFollowTheSpec reads every published input schema against
// pkg/wire's op table, so a schema that drifts from what dvvd accepts
// fails here: an enum is the op's variants or the field's closed set (the
// protocol registry for protocol), a required argument is one the op
// requires for every variant (and each such field is required in the
// schema unless the reference leaves it optional), bounds are the field's
// Min/Max, and whole numbers are the integer fields of the op's Args.
func TestSchemasFollowTheSpec(t *testing.T) {
	for i := range Tools {
		tool := &Tools[i]
		spec := tool.Spec()
		s := publishedSchema(t, tool)
		props, _ := s["properties"].(map[string]any)
		var required []string
		for _, r := range anyList(s["required"]) {
			required = append(required, r.(string))
		}
		for name, p := range props {
			p := p.(map[string]any)
			where := tool.Name + "." + name
			f, ok := spec.Field(name)
			if !ok {
				t.Errorf("%s: op %s has no field %q", where, spec.Name, name)
				continue
			}
			var enum []string
			for _, v := range anyList(p["enum"]) {
				enum = append(enum, v.(string))
			}
			want := specValues(spec, f)
			if name == spec.Variant {
				// what the op grew after the reference, its tool does not offer
				want = without(slices.Clone(want), tool.frozen().variants)
			}
			if name == "protocol" && enum != nil {
				want = wire.ProtocolNames()
			}
			if !slices.Equal(enum, want) {
				t.Errorf("%s: enum %v, the op table says %v", where, enum, want)
			}
			optional := slices.Contains(referenceOptional[tool.Name], name)
			if optional && !requiredAlways(f) {
				t.Errorf("%s: listed as left optional by the reference, but dvvd does not require it either", where)
			}
			if got, wantReq := slices.Contains(required, name), requiredAlways(f) && !optional; got != wantReq {
				t.Errorf("%s: required %v in the schema, the op table says %v (field %+v)", where, got, wantReq, *f)
			}
			checkBound(t, where+" minimum", p["minimum"], f.Min)
			checkBound(t, where+" maximum", p["maximum"], f.Max)
			if p["type"] == TNumber {
				whole := p["multipleOf"] != nil
				if k := argsKind(spec.Args, name); isInteger(k) != whole {
					t.Errorf("%s: multipleOf 1 is %v, but the op's Args field is a %v", where, whole, k)
				}
			}
		}
	}
}

// TestFromSpecOverridesTheManifest: a manifest entry that spelt its own
// type, enum or required flag loses them to the op's Args and table.
func TestFromSpecOverridesTheManifest(t *testing.T) {
	tools := fromSpec([]Tool{{Name: "dvv_click", Op: wire.OpClick, Args: []Arg{
		{Name: "button", Type: TNumber, Whole: true, Required: true, Enum: []string{"left", "centre"}, Doc: "drifted"},
		arg("action", "not marked"),
	}}})
	button, action := tools[0].Args[0], tools[0].Args[1]
	if button.Required || strings.Join(button.Enum, ",") != "left,middle,right" || button.Type != TString || button.Whole {
		t.Errorf("button kept its own facts: %+v", button)
	}
	if !action.Required || len(action.Enum) != 7 {
		t.Errorf("action did not get the op's: %+v", action)
	}
}

func anyList(v any) []any { l, _ := v.([]any); return l }

func checkBound(t *testing.T, where string, got any, want *int64) {
	t.Helper()
	switch {
	case want == nil && got != nil && !strings.HasSuffix(where, "scale maximum"):
		t.Errorf("%s: %v, the op table has no bound", where, got)
	case want != nil && (got == nil || got.(float64) != float64(*want)):
		t.Errorf("%s: %v, the op table says %d", where, got, *want)
	}
}

// argsKind is the Go kind of the Args field with that JSON name (through
// the embedded selector).
func argsKind(typ reflect.Type, name string) reflect.Kind {
	for i := 0; i < typ.NumField(); i++ {
		sf := typ.Field(i)
		if sf.Anonymous {
			if k := argsKind(sf.Type, name); k != reflect.Invalid {
				return k
			}
			continue
		}
		if strings.Split(sf.Tag.Get("json"), ",")[0] == name {
			ft := sf.Type
			for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
				ft = ft.Elem()
			}
			return ft.Kind()
		}
	}
	return reflect.Invalid
}

func isInteger(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}
