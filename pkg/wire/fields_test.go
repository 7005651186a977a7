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

// inEnvelope reports whether f, a visible field of the Args type t, is
// one of its embedded Envelope's.
func inEnvelope(t reflect.Type, f reflect.StructField) bool {
	for _, i := range f.Index[:len(f.Index)-1] {
		if t = t.Field(i).Type; t == reflect.TypeFor[Envelope]() {
			return true
		}
	}
	return false
}
