package main

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/dvvhq/dvv/pkg/wire"
)

// goField is one op field as its Args struct declares it.
type goField struct {
	json, name string
	typ        reflect.Type
}

// gistFields maps the JSON names dvvd's generic code reads (wire.Gist) to
// Gist's Go fields.
var gistFields = map[string]string{
	"action": "Action", "until": "Until", "x": "X", "y": "Y", "toX": "ToX", "toY": "ToY",
	"text": "Text", "keys": "Keys", "bytesHex": "BytesHex", "verifyMs": "VerifyMs",
	"protocol": "Protocol", "address": "Address", "addresses": "Addresses", "host": "Host",
	"arguments": "Arguments", "timeoutMs": "TimeoutMs", "waitMs": "WaitMs",
}

// accessors writes the methods generic code reads an op's Args through:
// Variant (the variant field's value), Selection (close's limbId, where
// the trio is not embedded) and Gist (the shared fields the op takes).
func accessors(w *bytes.Buffer, s *wire.OpSpec, sel bool, fields []goField) error {
	recv := "a " + TypeName(s.Name) // value receivers: a client's Args are values, dvvd's pointers
	byJSON := map[string]goField{}
	for _, f := range fields {
		byJSON[f.json] = f
	}
	if s.Variant != "" {
		f, ok := byJSON[s.Variant]
		if !ok || f.typ.Kind() != reflect.String {
			return fmt.Errorf("op %s: variant field %q is not a text field", s.Name, s.Variant)
		}
		fmt.Fprintf(w, "// Variant is its %s.\nfunc (%s) Variant() string { return a.%s }\n\n", s.Variant, recv, f.name)
	}
	if s.NameMeans != "" {
		fmt.Fprintf(w, "// %s is the envelope's name, which op %s reads as its own.\nfunc (%s) %[1]s() string { return a.Name }\n\n", s.NameMeans, s.Name, recv)
	}
	for _, f := range fields {
		spec, _ := s.Field(f.json)
		variants := make([]string, 0, len(spec.Means))
		for v := range spec.Means {
			variants = append(variants, v)
		}
		slices.Sort(variants)
		for _, v := range variants {
			typ := strings.ReplaceAll(f.typ.String(), "wire.", "")
			fmt.Fprintf(w, "// %[1]s is its %[2]s for %[3]s %[4]s (else the zero value): another %[3]s reads %[2]s as something else.\n"+
				"func (%[5]s) %[1]s() (v %[6]s) {\nif a.Variant() == %[4]q {\nv = a.%[7]s\n}\nreturn v\n}\n\n",
				spec.Means[v], f.json, s.Variant, v, recv, typ, f.name)
		}
	}
	if f, ok := byJSON["limbId"]; ok && !sel {
		fmt.Fprintf(w, "// Selection is its limb.\nfunc (%s) Selection() Target { return Target{LimbID: a.%s} }\n\n", recv, f.name)
	}
	gist := reflect.TypeFor[wire.Gist]()
	var parts []string
	for _, f := range fields {
		gname, ok := gistFields[f.json]
		if !ok {
			continue
		}
		gf, ok := gist.FieldByName(gname)
		switch {
		case !ok:
			return fmt.Errorf("wire.Gist has no field %s", gname)
		case gf.Type == f.typ:
			parts = append(parts, fmt.Sprintf("%s: a.%s", gname, f.name))
		case gf.Type == reflect.PointerTo(f.typ):
			parts = append(parts, fmt.Sprintf("%s: &a.%s", gname, f.name))
		default:
			return fmt.Errorf("op %s: %s is %v, wire.Gist's %s is %v", s.Name, f.name, f.typ, gname, gf.Type)
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "// Gist is what generic code reads of it.\nfunc (%s) Gist() Gist {\nreturn Gist{", recv)
		for i, p := range parts {
			if i > 0 {
				w.WriteString(", ")
			}
			w.WriteString(p)
		}
		w.WriteString("}\n}\n\n")
	}
	return nil
}

// answerAccessors writes the setters dispatch fills an answer through: an
// act's verification, a limb op's limbId.
func answerAccessors(w *bytes.Buffer, s *wire.OpSpec, fields []reflect.StructField) {
	recv := "a *" + AnswerName(s.Name)
	for _, f := range fields {
		switch f.Name {
		case "Verification":
			fmt.Fprintf(w, "// SetVerification sets what was seen of the act's effect.\nfunc (%s) SetVerification(v *Verification) { a.Verification = v }\n\n", recv)
			fmt.Fprintf(w, "// Verified is what was seen of the act's effect.\nfunc (%s) Verified() *Verification { return a.Verification }\n\n", recv)
		case "LimbID":
			fmt.Fprintf(w, "// FillLimbID sets the limb's id unless the handler did.\nfunc (%s) FillLimbID(id string) {\nif a.LimbID == \"\" {\na.LimbID = id\n}\n}\n\n", recv)
		}
	}
}
