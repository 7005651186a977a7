package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedFilesAreCurrent: the Args and Answer structs and the client
// methods were generated from the op table as it is now.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	files, err := Files("../../..")
	if err != nil {
		t.Fatal(err)
	}
	if stale := Stale("../../..", files); len(stale) > 0 {
		t.Errorf("%v: no op writes these any more: run `make docs`", stale)
	}
	for path, want := range files {
		got, err := os.ReadFile("../../../" + path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run `make docs` (or go run ./internal/gen/args)", path)
		}
	}
}

// writeTree writes a pkg/wire of its own under a temporary root: ops.go
// listing the ops, gist.go, and one op file per op.
func writeTree(t *testing.T, ops map[string]string, order ...string) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "pkg/wire")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var lit strings.Builder
	for _, o := range order {
		lit.WriteString(camelLower(o) + "Op(),\n")
	}
	files := map[string]string{
		"ops.go":  "package wire\n\nfunc opLiteral() []OpSpec {\nreturn []OpSpec{\n" + lit.String() + "}\n}\n",
		"gist.go": "package wire\n\ntype Gist struct {\nAction string\nText *string\n}\n",
	}
	for name, src := range ops {
		files["op_"+name+".go"] = src
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func camelLower(op string) string { c := camel(op); return strings.ToLower(c[:1]) + c[1:] }

// TestOneNameTwoTypes: each op declares its own fields, so one JSON name
// can be text in one op and a number in another, with its own bounds and
// help in each; nothing global types it.
func TestOneNameTwoTypes(t *testing.T) {
	root := writeTree(t, map[string]string{
		"move": "package wire\n\nconst OpMove = \"move\"\n\ntype MoveArgs struct {\nEnvelope\n// Where the file goes.\nTo string `json:\"to,omitempty\" dvv:\"required,localpath\"`\n}\n\ntype MoveAnswer struct{}\n\nfunc moveOp() OpSpec { return OpSpec{Name: OpMove} }\n",
		"seek": "package wire\n\nconst OpSeek = \"seek\"\n\ntype SeekArgs struct {\nEnvelope\nTarget\n// note: a byte offset\nTo *int `json:\"to,omitempty\" dvv:\"min=0,max=MaxSeek\"`\n}\n\ntype SeekAnswer struct {\nLimbID string `json:\"limbId,omitempty\"`\n}\n\nfunc seekOp() OpSpec { return OpSpec{Name: OpSeek, Limb: true} }\n",
	}, "move", "seek")
	files, err := Files(root)
	if err != nil {
		t.Fatal(err)
	}
	move, seek := string(files[OpFile("move")]), string(files[OpFile("seek")])
	for _, want := range []string{`{Name: "to", Required: true, LocalPath: true, Help: "Where the file goes."}`} {
		if !strings.Contains(move, want) {
			t.Errorf("move's generated spec lacks %s:\n%s", want, move)
		}
	}
	for _, want := range []string{`{Name: "member", Min: bound(0)}`, `{Name: "to", Min: bound(0), Max: bound(MaxSeek), Note: "a byte offset"}`, `s.Answers = []string{"limbId"}`, "FillLimbID"} {
		if !strings.Contains(seek, want) {
			t.Errorf("seek's generated spec lacks %s:\n%s", want, seek)
		}
	}
	if !strings.Contains(string(files[WireFile]), `case "move":`) || !strings.Contains(string(files[ClientFile]), "func (c *Client) Seek(") {
		t.Errorf("the table or the client misses an op:\n%s\n%s", files[WireFile], files[ClientFile])
	}
}

// TestTypesAreTheOnlyDeclaration: a spec that sets what the types say, an
// unknown dvv tag key, or a variant field without its variants is refused,
// naming the op's file.
func TestTypesAreTheOnlyDeclaration(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"fields in the spec", "package wire\n\nconst OpX = \"x\"\n\ntype XArgs struct{ Envelope }\n\ntype XAnswer struct{}\n\nfunc xOp() OpSpec { return OpSpec{Name: OpX, Fields: nil} }\n", "sets Fields"},
		{"unknown tag key", "package wire\n\nconst OpX = \"x\"\n\ntype XArgs struct {\nEnvelope\nN *int `json:\"n,omitempty\" dvv:\"minimum=1\"`\n}\n\ntype XAnswer struct{}\n\nfunc xOp() OpSpec { return OpSpec{Name: OpX} }\n", `unknown dvv tag "minimum"`},
		{"variant without variants", "package wire\n\nconst OpX = \"x\"\n\ntype XArgs struct {\nEnvelope\nAction string `json:\"action,omitempty\" dvv:\"variant\"`\n}\n\ntype XAnswer struct{}\n\nfunc xOp() OpSpec { return OpSpec{Name: OpX} }\n", "its enum lists the variants"},
		{"no answer type", "package wire\n\nconst OpX = \"x\"\n\ntype XArgs struct{ Envelope }\n\nfunc xOp() OpSpec { return OpSpec{Name: OpX} }\n", "declare XArgs and XAnswer"},
	} {
		_, err := Files(writeTree(t, map[string]string{"x": c.src}, "x"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want one saying %q", c.name, err, c.want)
		}
	}
}
