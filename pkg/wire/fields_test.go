package wire

import (
	"reflect"
)

// ArgsFields lists the JSON names of an Args type's fields, in order
// (the embedded selector's first), without the envelope every Args embeds.
func ArgsFields(t reflect.Type) []string {
	var out []string
	for _, f := range reflect.VisibleFields(t) {
		if !f.Anonymous && f.IsExported() && jsonName(f) != "" && !inEnvelope(t, f) {
			out = append(out, jsonName(f))
		}
	}
	return out
}

// RequestField reports whether name is a field of Request.
func RequestField(name string) bool { _, ok := requestFields()[name]; return ok }
