package mcp

import (
	"slices"

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
		for j := range t.Args {
			a := &t.Args[j]
			f, ok := spec.Field(a.Name)
			if !ok {
				continue
			}
			if values := specValues(spec, f); values != nil {
				a.Enum = slices.Clone(values)
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
