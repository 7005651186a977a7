// Package layout holds the repository's rules about where code lives, read
// from the source itself: what the product may import and how branchy the
// request path and the files read first may grow.
package layout

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/dvvhq/dvv/"

// root is the repository's top, two levels above this package.
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// packageDirs lists every directory under top holding Go files.
func packageDirs(t *testing.T, top string) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(top, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			if dir := filepath.Dir(path); len(dirs) == 0 || dirs[len(dirs)-1] != dir {
				dirs = append(dirs, dir)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// TestProductDoesNotImportInternal: internal/ holds the generators and the
// test beds; what ships (pkg/ and cmd/) must not depend on them, so a
// helper the product needs lives under pkg/.
func TestProductDoesNotImportInternal(t *testing.T) {
	top := root(t)
	for _, under := range []string{"pkg", "cmd"} {
		for _, dir := range packageDirs(t, filepath.Join(top, under)) {
			p, err := build.ImportDir(dir, 0)
			if err != nil {
				if _, ok := err.(*build.NoGoError); ok {
					continue
				}
				t.Fatal(err)
			}
			for _, imp := range p.Imports {
				if strings.HasPrefix(imp, module+"internal/") {
					rel, _ := filepath.Rel(top, dir)
					t.Errorf("%s imports %s outside its tests", rel, imp)
				}
			}
		}
	}
}

// requestPath are the packages a request runs through inside dvvd: the
// daemon (with any package split out of it), the RFB server shares and
// viewers are served by, and what the structure and machine ops call on
// the request's own goroutine (machine strings, the window manager, the
// accessibility tree, policy, saved hosts).
var requestPath = []string{"pkg/daemon", "pkg/rfbserver", "pkg/machine", "pkg/xwin", "pkg/atspi", "pkg/policy", "pkg/hosts"}

// maxCyclomatic bounds a function's branches on the request path, so
// each reads as one decision and its stages have names.
const maxCyclomatic = 20

// TestRequestPathIsNotBranchy: no hand-written function on the request
// path is over cyclomatic 20, counted as gocyclo counts (1, plus each if,
// for, range, non-default case and select case, && and ||), function
// literals included.
func TestRequestPathIsNotBranchy(t *testing.T) {
	top := root(t)
	fset := token.NewFileSet()
	for _, under := range requestPath {
		for _, dir := range packageDirs(t, filepath.Join(top, under)) {
			files, err := filepath.Glob(filepath.Join(dir, "*.go"))
			if err != nil {
				t.Fatal(err)
			}
			for _, path := range files {
				if strings.HasSuffix(path, "_test.go") || strings.HasSuffix(path, "_gen.go") {
					continue
				}
				checkBranches(t, fset, top, path)
			}
		}
	}
}

// readFirst are the files a maintainer new to their package reads first:
// the vncdotool translator of pkg/script, pkg/rfb's VeNCrypt, `dvv
// replay` and the MCP bridge's results. They are off the request path
// (a limb's own goroutine, the clients), but each reads as named steps or
// a table, and stays so.
var readFirst = []string{"pkg/script/vncdo.go", "pkg/rfb/vencrypt.go", "pkg/cli/replay.go", "pkg/mcp/results.go"}

// TestReadFirstFilesAreNotBranchy: no function of the read-first files is
// over cyclomatic 20, counted as on the request path.
func TestReadFirstFilesAreNotBranchy(t *testing.T) {
	top := root(t)
	fset := token.NewFileSet()
	for _, rel := range readFirst {
		checkBranches(t, fset, top, filepath.Join(top, rel))
	}
}

// checkBranches fails the test for each function of the file at path over
// maxCyclomatic.
func checkBranches(t *testing.T, fset *token.FileSet, top, path string) {
	t.Helper()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok {
			continue
		}
		if n := cyclomatic(fn); n > maxCyclomatic {
			rel, _ := filepath.Rel(top, path)
			t.Errorf("%s: %s is cyclomatic %d, over %d: give its stages names", rel, fn.Name.Name, n, maxCyclomatic)
		}
	}
}

func cyclomatic(fn *ast.FuncDecl) int {
	n := 1
	ast.Inspect(fn, func(node ast.Node) bool {
		switch x := node.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			n++
		case *ast.CaseClause:
			if x.List != nil {
				n++
			}
		case *ast.CommClause:
			if x.Comm != nil {
				n++
			}
		case *ast.BinaryExpr:
			if x.Op == token.LAND || x.Op == token.LOR {
				n++
			}
		}
		return true
	})
	return n
}
