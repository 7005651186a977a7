package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestDaemonFilesNeverReachUp holds pkg/daemon to its floors
// (docs/architecture.md, "Rooms of pkg/daemon"): no two files use each
// other, directly or around a loop, so each file can be read knowing only
// the files beneath it. A file uses another when it names a function,
// type, variable, constant or unexported method that the other declares.
// A method is matched by its name, where one file alone declares a method
// of that name (two types' admit could be either); exported methods are
// left out, as they are the
// package's side of another package's interface (a Write, a Limbs) and
// their names meet every io.Writer's; so is a method whose name is also a
// field's (x.cancel may be either), which a file would use without naming it.
func TestDaemonFilesNeverReachUp(t *testing.T) {
	dir := filepath.Join(root(t), "pkg", "daemon")
	uses := fileUses(t, dir)
	if loop := findLoop(uses); loop != nil {
		var b strings.Builder
		for i := range len(loop) - 1 {
			from, to := loop[i], loop[i+1]
			b.WriteString("\n  " + from + " -> " + to + " (" + strings.Join(uses[from][to], ", ") + ")")
		}
		t.Fatalf("files of pkg/daemon reach each other in a loop:%s\ndeclare the shared part in a file beneath both, or move the code that reaches up into a file above", b.String())
	}
}

// fileUses maps each non-test, non-generated file of dir to the files it
// uses, with the names that tie them.
func fileUses(t *testing.T, dir string) map[string]map[string][]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") || strings.HasSuffix(n, "_gen.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files[n] = f
	}
	topLevel := map[string]map[string]bool{} // name -> files declaring it
	methods := map[string]map[string]bool{}
	declare := func(into map[string]map[string]bool, name, file string) {
		if name == "_" || name == "init" {
			return
		}
		if into[name] == nil {
			into[name] = map[string]bool{}
		}
		into[name][file] = true
	}
	for name, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil {
					if !ast.IsExported(d.Name.Name) {
						declare(methods, d.Name.Name, name)
					}
				} else {
					declare(topLevel, d.Name.Name, name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						declare(topLevel, s.Name.Name, name)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							declare(topLevel, n.Name, name)
						}
					}
				}
			}
		}
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if st, ok := n.(*ast.StructType); ok {
				for _, fl := range st.Fields.List {
					for _, id := range fl.Names {
						delete(methods, id.Name)
					}
				}
			}
			return true
		})
	}
	for m, in := range methods {
		if len(in) > 1 {
			delete(methods, m)
		}
	}
	uses := map[string]map[string][]string{}
	for name, f := range files {
		imports := map[string]bool{}
		for _, im := range f.Imports {
			p := strings.Trim(im.Path.Value, `"`)
			local := p[strings.LastIndex(p, "/")+1:]
			if im.Name != nil {
				local = im.Name.Name
			}
			imports[local] = true
		}
		add := func(declared map[string]bool, ident string) {
			if declared[name] {
				return // declared here too: its own
			}
			for other := range declared {
				if uses[name] == nil {
					uses[name] = map[string][]string{}
				}
				if !containsString(uses[name][other], ident) {
					uses[name][other] = append(uses[name][other], ident)
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && imports[x.Name] {
					return false // another package's name
				}
				ast.Inspect(n.X, func(m ast.Node) bool {
					if id, ok := m.(*ast.Ident); ok {
						add(topLevel[id.Name], id.Name)
					}
					return true
				})
				add(methods[n.Sel.Name], n.Sel.Name)
				return false
			case *ast.KeyValueExpr:
				if _, ok := n.Key.(*ast.Ident); ok {
					ast.Inspect(n.Value, func(m ast.Node) bool {
						if id, ok := m.(*ast.Ident); ok {
							add(topLevel[id.Name], id.Name)
						}
						return true
					})
					return false // a field's name in a literal
				}
			case *ast.Field:
				if n.Type != nil {
					ast.Inspect(n.Type, func(m ast.Node) bool {
						if id, ok := m.(*ast.Ident); ok {
							add(topLevel[id.Name], id.Name)
						}
						return true
					})
				}
				return false // the field's own names declare, not use
			case *ast.Ident:
				add(topLevel[n.Name], n.Name)
			}
			return true
		})
	}
	for _, to := range uses {
		for _, names := range to {
			sort.Strings(names)
		}
	}
	return uses
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// findLoop returns files f0 -> f1 -> … -> f0 that use each other, or nil.
func findLoop(uses map[string]map[string][]string) []string {
	const (
		unseen = iota
		onPath
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(f string) []string
	visit = func(f string) []string {
		state[f] = onPath
		path = append(path, f)
		var next []string
		for to := range uses[f] {
			next = append(next, to)
		}
		sort.Strings(next)
		for _, to := range next {
			switch state[to] {
			case onPath:
				i := len(path) - 1
				for path[i] != to {
					i--
				}
				return append(append([]string(nil), path[i:]...), to)
			case unseen:
				if loop := visit(to); loop != nil {
					return loop
				}
			}
		}
		path = path[:len(path)-1]
		state[f] = done
		return nil
	}
	var all []string
	for f := range uses {
		all = append(all, f)
	}
	sort.Strings(all)
	for _, f := range all {
		if state[f] == unseen {
			if loop := visit(f); loop != nil {
				return loop
			}
		}
	}
	return nil
}
