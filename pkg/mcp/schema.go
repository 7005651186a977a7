package mcp

import "github.com/dvvhq/dvv/pkg/wire"

// InputSchema is the JSON Schema (2020-12) of the tool's arguments, as
// tools/list publishes it. Unknown arguments are refused, so a misspelt
// name (limbID) fails loudly instead of being ignored.
//
// Types, names, enums and required fields are the tool reference's; beside
// them the schema states what dvvd enforces, so a client can validate before
// it calls: whole numbers (multipleOf 1) and the bounds of pkg/wire's op
// table (minimum, maximum).
func (t *Tool) InputSchema() map[string]any {
	if t.Local != nil {
		return objectSchema(t.Args, true, nil)
	}
	return objectSchema(t.Args, true, t.Spec())
}

func objectSchema(args []Arg, closed bool, spec *wire.OpSpec) map[string]any {
	props := make(map[string]any, len(args))
	var req []string
	for i := range args {
		a := &args[i]
		props[a.Name] = argSchema(a, spec)
		if a.Required {
			req = append(req, a.Name)
		}
	}
	s := map[string]any{"type": TObject, "properties": props}
	if len(req) > 0 {
		s["required"] = req
	}
	if closed {
		s["additionalProperties"] = false
	}
	return s
}

func argSchema(a *Arg, spec *wire.OpSpec) map[string]any {
	var s map[string]any
	switch {
	case a.Type == TObject && a.Props != nil:
		s = objectSchema(a.Props, true, nil)
	default:
		s = map[string]any{"type": a.Type}
	}
	if a.Type == TArray {
		s["items"] = map[string]any{"type": a.Items}
	}
	if len(a.Enum) > 0 {
		s["enum"] = a.Enum
	}
	if a.Type == TNumber && a.Whole {
		s["multipleOf"] = 1
	}
	if a.Type == TNumber && a.Name == "scale" {
		s["exclusiveMinimum"], s["maximum"] = 0, 1 // dvvd refuses a scale outside (0, 1]
	}
	if spec != nil {
		if f, ok := spec.Field(a.Name); ok {
			if f.Min != nil {
				s["minimum"] = *f.Min
			}
			if f.Max != nil {
				s["maximum"] = *f.Max
			}
		}
	}
	if a.Doc != "" {
		s["description"] = a.Doc
	}
	return s
}
