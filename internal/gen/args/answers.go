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
var envelopeFields = []string{"result", "id", "code", "message", "next", "cause", "fingerprint"}

// RenderAnswers returns, per op (for its op_<name>_gen.go), a struct with
// exactly the spec's AnswerFields under the answer catalog's Go names,
// types and JSON tags (in the catalog's order): dvvd writes an answer's line straight
// from it, and a client decodes it from a line with wire.DecodeAnswer. types
// is answers_gen.go, the table naming them.
func RenderAnswers() (perOp map[string][]byte, types []byte, err error) {
	byJSON := map[string]reflect.StructField{}
	var order []string
	for _, f := range reflect.VisibleFields(reflect.TypeFor[answerCatalog]()) {
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
				return nil, nil, fmt.Errorf("op %s: answer field %q is not in the answer catalog (internal/gen/args/answer_catalog.go)", s.Name, n)
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

// ReaderFile is the test reader of any answer line.
const ReaderFile = "internal/wiretest/response_gen.go"

// RenderReader is internal/wiretest.Response: the envelope and a
// failure's fields, then every field of the answer catalog, in the order
// of the flat answer object the protocol has always had. Tests read any
// line with it; no product code does.
func RenderReader() ([]byte, error) {
	var w bytes.Buffer
	w.WriteString(readerHeader + "package wiretest\n\nimport (\n\t\"encoding/json\"\n\n\t\"github.com/dvvhq/dvv/pkg/wire\"\n)\n\n")
	w.WriteString("// Response is any answer line read whole: its envelope, a failure's fields\n// and every answer field of every op.\ntype Response struct {\n")
	w.WriteString("Result string `json:\"result\"`\nID json.RawMessage `json:\"id,omitempty\"`\n")
	w.WriteString("Code wire.Code `json:\"code,omitempty\"`\nMessage string `json:\"message,omitempty\"`\nNext string `json:\"next,omitempty\"`\nCause wire.Code `json:\"cause,omitempty\"`\n")
	for _, f := range reflect.VisibleFields(reflect.TypeFor[answerCatalog]()) {
		fmt.Fprintf(&w, "%s %s `%s`\n", f.Name, f.Type.String(), f.Tag)
	}
	w.WriteString("}\n")
	out, err := format.Source(w.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%s: %v", ReaderFile, err)
	}
	return out, nil
}
