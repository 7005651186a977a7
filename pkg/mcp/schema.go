package mcp

// InputSchema is the JSON Schema (2020-12) of the tool's arguments, as
// tools/list publishes it. Unknown arguments are refused, so a misspelt
// name (limbID) fails loudly instead of being ignored.
func (t *Tool) InputSchema() map[string]any {
	return objectSchema(t.Args, true)
}

func objectSchema(args []Arg, closed bool) map[string]any {
	props := make(map[string]any, len(args))
	var req []string
	for i := range args {
		a := &args[i]
		props[a.Name] = argSchema(a)
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

func argSchema(a *Arg) map[string]any {
	var s map[string]any
	switch {
	case a.Type == TObject && a.Props != nil:
		s = objectSchema(a.Props, true)
	default:
		s = map[string]any{"type": a.Type}
	}
	if a.Type == TArray {
		s["items"] = map[string]any{"type": a.Items}
	}
	if len(a.Enum) > 0 {
		s["enum"] = a.Enum
	}
	if a.Doc != "" {
		s["description"] = a.Doc
	}
	return s
}
