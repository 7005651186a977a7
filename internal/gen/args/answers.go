package main

import (
	"bytes"
	"fmt"
	"go/format"
	"reflect"
	"slices"
	"strings"

	"github.com/dvvhq/dvv/pkg/wire"
)

// AnswerName is the Go name of an op's answer: click → ClickAnswer.
func AnswerName(op string) string { return camel(op) + "Answer" }

// envelopeFields are on every answer line (result, id) or on failures
// only (the error fields): no op declares them as its answer.
var envelopeFields = []string{"result", "id", "code", "message", "next", "cause"}

// RenderAnswers returns, per op (for its op_<name>_gen.go), a struct with
// exactly the spec's AnswerFields under Response's Go names, types and
// JSON tags (in Response's order): dvvd writes an answer's line straight
// from it, and a client decodes it from a line with wire.DecodeAnswer. types
// is answers_gen.go, the table naming them.
func RenderAnswers() (perOp map[string][]byte, types []byte, err error) {
	byJSON := map[string]reflect.StructField{}
	var order []string
	for _, f := range reflect.VisibleFields(reflect.TypeFor[wire.Response]()) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		byJSON[name] = f
		order = append(order, name)
	}
	perOp = map[string][]byte{}
	for i := range wire.Ops() {
		s := &wire.Ops()[i]
		var w bytes.Buffer
		want := s.AnswerFields()
		for _, n := range want {
			if _, ok := byJSON[n]; !ok {
				return nil, nil, fmt.Errorf("op %s: answer field %q is not a field of wire.Response", s.Name, n)
			}
			if slices.Contains(envelopeFields, n) {
				return nil, nil, fmt.Errorf("op %s: %q is on every answer line; it is not an op's answer field", s.Name, n)
			}
		}
		var fields []reflect.StructField
		for _, n := range order {
			if slices.Contains(want, n) {
				fields = append(fields, byJSON[n])
			}
		}
		name := AnswerName(s.Name)
		fmt.Fprintf(&w, "// %s is what a success of op %s carries.\n", name, s.Name)
		if len(fields) == 0 {
			fmt.Fprintf(&w, "type %s struct{}\n\n", name)
		} else {
			fmt.Fprintf(&w, "type %s struct {\n", name)
			for _, f := range fields {
				fmt.Fprintf(&w, "%s %s `%s`\n", f.Name, strings.ReplaceAll(f.Type.String(), "wire.", ""), f.Tag)
			}
			w.WriteString("}\n\n")
		}
		fmt.Fprintf(&w, "// Op is %q.\nfunc (%s) Op() string { return %[1]q }\n\n", s.Name, name)
		answerAccessors(&w, s, fields)
		perOp[s.Name] = w.Bytes()
	}
	var w bytes.Buffer
	w.WriteString(answerHeader + "package wire\n\nimport \"reflect\"\n\n")
	w.WriteString("// answerTypeMap names each op's answer type; the op table puts it in the op's spec.\nfunc answerTypeMap() map[string]reflect.Type {\n\treturn map[string]reflect.Type{\n")
	for _, s := range wire.Ops() {
		fmt.Fprintf(&w, "%q: reflect.TypeFor[%s](),\n", s.Name, AnswerName(s.Name))
	}
	w.WriteString("}\n}\n")
	if types, err = format.Source(w.Bytes()); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", AnswerFile, err)
	}
	return perOp, types, nil
}
