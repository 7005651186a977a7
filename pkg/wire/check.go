package wire

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// envelope fields may come with any op: op and id frame the request, and
// the first request on a connection may carry the attachment's name, token
// and session.
var envelope = map[string]bool{"op": true, "id": true, "name": true, "token": true, "session": true}

// Check refuses, as BAD_REQUEST naming the field, a request that carries a
// field its op does not take, a field that does not apply to the variant
// asked (clipboard get with text), an unknown variant, or a whole number
// outside its field's bounds. Handlers rely on it and on CheckRequired and
// do not check these again. Presence is a non-zero value: every optional
// field of an Args struct is a pointer, a slice or omitted when empty.
func (s *OpSpec) Check(m any) *Error {
	v := reflect.ValueOf(m).Elem()
	variant := s.VariantOf(m)
	if s.Variant != "" {
		if variant != "" && !s.HasVariant(variant) {
			return Errorf(BadRequest, "%s %q is not one of %s", s.Variant, variant, strings.Join(s.Variants, ", "))
		}
	}
	// Walk the struct in field order so the first offending field named is
	// stable from one run to the next.
	fs := fieldsOf(v.Type())
	for i, name := range fs.names {
		fv := v.FieldByIndex(fs.paths[i])
		if envelope[name] || fv.IsZero() {
			continue
		}
		f, ok := s.Field(name)
		if !ok {
			return Errorf(BadRequest, "%s does not take %q; its fields are: %s", s.Name, name, s.FieldNames())
		}
		if !f.Applies(variant) {
			return Errorf(BadRequest, "%q applies to %s %s only, not %s %q", name, s.Name, orList(f.Only), s.Variant, variant)
		}
		if len(f.Values) > 0 && fv.Kind() == reflect.String && !slices.Contains(f.Values, fv.String()) {
			return Errorf(BadRequest, "%s %q is not one of %s", name, fv.String(), strings.Join(f.Values, ", "))
		}
		if f.Text > 0 && fv.Kind() == reflect.String {
			if err := CheckLabel(name, fv.String(), f.Text, fmt.Sprintf("give %s as printable text on one line, at most %d bytes (no control characters or escape sequences)", name, f.Text)); err != nil {
				return err
			}
		}
		if fv.Kind() == reflect.Pointer && fv.Elem().CanInt() {
			if err := f.CheckRange(fv.Elem().Int()); err != nil {
				return err
			}
		}
	}
	return nil
}

// VariantOf is the value of the op's variant field in m, a pointer to the
// op's Args ("" when the op has none or m leaves it out).
func (s *OpSpec) VariantOf(m any) string {
	switch m := m.(type) {
	case Varied:
		return m.Variant()
	default: // Args written by hand: read by the spec's name
		if f, ok := FieldOf(m, s.Variant); ok && f.Kind() == reflect.String {
			return f.String()
		}
	}
	return ""
}

// CheckRequired refuses, as BAD_REQUEST naming it, a request that lacks a
// field required for its variant. dvvd runs it after Check, once the limb
// is known to be of the op's kind (a wrong kind is the better answer).
func (s *OpSpec) CheckRequired(m any) *Error {
	variant := s.VariantOf(m)
	for i := range s.Fields {
		f := &s.Fields[i]
		if f.RequiredFor(variant) && !Has(m, f.Name) {
			return s.missing(f, variant)
		}
	}
	return nil
}

// missing says which required field is absent and, where it helps, what
// to give: "action is required: get or set", "set needs text".
func (s *OpSpec) missing(f *Field, variant string) *Error {
	msg := f.Name + " is required"
	switch {
	case f.Name == s.Variant:
		msg += ": " + orList(s.Variants)
	case (len(f.Only) > 0 || len(f.RequiredIn) > 0) && s.Variant == "action":
		msg = variant + " needs " + f.Name
	case len(f.Only) > 0 || len(f.RequiredIn) > 0:
		msg = s.Variant + " " + variant + " needs " + f.Name
	}
	if f.Need != "" {
		msg += " (" + f.Need + ")"
	}
	return Errorf(BadRequest, "%s", msg)
}

func orList(vs []string) string {
	switch len(vs) {
	case 0:
		return ""
	case 1:
		return vs[0]
	}
	return strings.Join(vs[:len(vs)-1], ", ") + " or " + vs[len(vs)-1]
}
