// Command genargs reads each op's types in pkg/wire (op_<name>.go declares
// <Name>Args and <Name>Answer as plain Go structs; their struct tags and
// doc comments say what each field is) and writes what follows from them:
// per op, op_<name>_gen.go with the methods generic code reads the types
// through and the spec's fields, variants and answer fields; ops_gen.go,
// which hands those to the op table; one client method per op in
// pkg/client (ops_gen.go); and the test reader of any answer line. The
// generator parses the sources (go/parser) rather than importing pkg/wire,
// so it runs whatever state the generated files are in. `make docs` runs
// it.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Outputs, relative to the repository root.
const (
	WireFile   = "pkg/wire/ops_gen.go"
	ClientFile = "pkg/client/ops_gen.go"
	ReaderFile = "internal/wiretest/response_gen.go"
)

// OpFile is the generated file of one op, beside its hand-written types
// and spec (pkg/wire/op_<name>.go).
func OpFile(op string) string { return "pkg/wire/op_" + op + "_gen.go" }

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	files, err := Files(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genargs:", err)
		os.Exit(1)
	}
	for path, src := range files {
		if err := os.WriteFile(filepath.Join(root, path), src, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "genargs:", err)
			os.Exit(1)
		}
	}
	for _, p := range Stale(root, files) {
		if err := os.Remove(p); err != nil {
			fmt.Fprintln(os.Stderr, "genargs:", err)
			os.Exit(1)
		}
	}
}

// TypeName is the Go name of an op's Args: click → ClickArgs,
// term_read → TermReadArgs.
func TypeName(op string) string { return camel(op) + "Args" }

// AnswerName is the Go name of an op's answer: click → ClickAnswer.
func AnswerName(op string) string { return camel(op) + "Answer" }

// MethodName is the client method for an op; close is CloseLimb, as
// Client.Close closes the connection.
func MethodName(op string) string {
	if op == "close" {
		return "CloseLimb"
	}
	return camel(op)
}

func camel(op string) string {
	var b strings.Builder
	for _, part := range strings.Split(op, "_") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

// Stale lists generated op files under root that no op writes any more
// (an op removed or renamed), and the two type tables an earlier
// generator wrote (args_gen.go, answers_gen.go).
func Stale(root string, files map[string][]byte) []string {
	found, _ := filepath.Glob(filepath.Join(root, "pkg/wire/op_*_gen.go"))
	for _, old := range []string{"pkg/wire/args_gen.go", "pkg/wire/answers_gen.go"} {
		if _, err := os.Stat(filepath.Join(root, old)); err == nil {
			found = append(found, filepath.Join(root, old))
		}
	}
	var stale []string
	for _, p := range found {
		rel := strings.TrimPrefix(filepath.ToSlash(p), filepath.ToSlash(filepath.Clean(root))+"/")
		if _, ok := files[rel]; !ok {
			stale = append(stale, p)
		}
	}
	return stale
}
