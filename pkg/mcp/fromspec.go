package mcp

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/dvvhq/dvv/pkg/wire"
)

// referenceOptional are arguments dvvd requires but the tool reference
// publishes as optional. The schema keeps the reference's word (a client
// may leave them out), and dvvd's BAD_REQUEST names the missing field.
var referenceOptional = map[string][]string{
	"dvv_click": {"x", "y"}, // every click action needs a point
}

// fromSpec fills in what the op table already states about each tool's
// arguments, so the manifest cannot drift from what dvvd accepts: an
// argument is required when its op requires the field for every variant,
// and the enum of the field that picks the variant (action, until, form) is
// the op's variants, that of a closed field (button, direction) its values.
func fromSpec(tools []Tool) []Tool {
	for i := range tools {
		t := &tools[i]
		spec := t.Spec()
		fields := argsFields(spec.Args)
		for j := range t.Args {
			a := &t.Args[j]
			spec := spec
			sf, ok := fields[a.Name]
			if !ok && t.Also != "" {
				spec = t.alsoSpec()
				sf, ok = argsFields(spec.Args)[a.Name]
			}
			if !ok {
				panic("mcp: tool " + t.Name + "'s argument " + a.Name + " is not a field of " + spec.Args.String())
			}
			typed(a, sf.Type)
			f, ok := spec.Field(a.Name)
			if !ok {
				continue
			}
			if values := specValues(spec, f); values != nil {
				a.Enum = without(slices.Clone(values), t.frozen().variants)
			}
			a.Required = requiredAlways(f) && !slices.Contains(referenceOptional[t.Name], a.Name)
		}
	}
	return tools
}

// specValues is the closed set of values a field takes, nil when open.
func specValues(spec *wire.OpSpec, f *wire.Field) []string {
	if f.Name == spec.Variant {
		return spec.Variants
	}
	return f.Values
}

// requiredAlways reports whether the field is required whatever the
// variant; one required for some variants only (files' path, wait's text)
// stays optional in a schema, which cannot say "needed for rename".
func requiredAlways(f *wire.Field) bool {
	return f.Required && len(f.Only) == 0 && len(f.RequiredIn) == 0
}

// argsFields indexes an Args type's fields by JSON name (the embedded
// selector's too).
func argsFields(t reflect.Type) map[string]reflect.StructField {
	m := map[string]reflect.StructField{}
	for _, f := range reflect.VisibleFields(t) {
		if name := jsonName(f); !f.Anonymous && f.IsExported() && name != "" {
			m[name] = f
		}
	}
	return m
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	return name
}

var rawJSON = reflect.TypeFor[json.RawMessage]()

// typed sets an argument's JSON type from the Go type of its Args field:
// whole numbers for integers, an object's properties from its struct
// (a field without omitempty is required), an array's item type.
func typed(a *Arg, t reflect.Type) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	a.Whole, a.Items = false, ""
	switch {
	case t == rawJSON || t.Kind() == reflect.Map:
		a.Type = TObject
	case t.Kind() == reflect.String:
		a.Type = TString
	case t.Kind() == reflect.Bool:
		a.Type = TBoolean
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		a.Type = TNumber
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		a.Type, a.Whole = TNumber, true
	case t.Kind() == reflect.Slice:
		var item Arg
		typed(&item, t.Elem())
		a.Type, a.Items = TArray, item.Type
	case t.Kind() == reflect.Struct:
		a.Type = TObject
		fields := argsFields(t)
		for i := range a.Props {
			p := &a.Props[i]
			f, ok := fields[p.Name]
			if !ok {
				panic("mcp: property " + p.Name + " of " + a.Name + " is not a field of " + t.String())
			}
			typed(p, f.Type)
			_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			p.Required = !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero")
		}
	default:
		panic("mcp: argument " + a.Name + " has Go type " + t.String() + ", which no JSON schema type names")
	}
}
