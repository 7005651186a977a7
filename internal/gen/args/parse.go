package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
)

// op is one op as its file declares it.
type op struct {
	Name     string // on the wire
	Const    string // OpClick
	File     string // op_click.go
	NoAttach bool   // the spec says NoAttach: true
	Args     []field
	Embeds   []string // Envelope, Target
	Answer   []field
}

// field is one field of an Args or Answer struct.
type field struct {
	GoName, Type string // Type as written in package wire
	Tag          reflect.StructTag
	Doc          string // the doc comment up to "note:": the field's help
	Note         string // the doc comment from a line starting "note:": the docs' remark
	JSON0        string // the selector's JSON names, which Target declares
}

// JSON is the field's JSON name.
func (f field) JSON() string {
	n, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return n
}

// traits is the field's dvv tag: flags and key=value pairs.
func (f field) traits() map[string]string {
	m := map[string]string{}
	tag := f.Tag.Get("dvv")
	if tag == "" {
		return m
	}
	for _, part := range strings.Split(tag, ",") {
		k, v, _ := strings.Cut(part, "=")
		m[k] = v
	}
	return m
}

// knownTraits are the keys a dvv tag may carry (wire.FieldTraits reads
// them the same way).
var knownTraits = map[string]bool{"variant": true, "required": true, "only": true, "enum": true, "min": true, "max": true, "label": true, "localpath": true}

// readOps parses pkg/wire: the op files in the order ops.go's opLiteral
// lists their spec functions, and Gist's fields.
func readOps(root string) ([]*op, map[string]string, error) {
	dir := filepath.Join(root, "pkg/wire")
	fset := token.NewFileSet()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, nil, err
	}
	byFunc := map[string]*op{}
	var order []string
	gist := map[string]string{}
	for _, p := range paths {
		base := filepath.Base(p)
		if strings.HasSuffix(base, "_test.go") || strings.HasSuffix(base, "_gen.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case base == "ops.go":
			order = literalOrder(f)
		case base == "gist.go":
			if st := structType(f, "Gist"); st != nil {
				for _, fl := range st.Fields.List {
					for _, n := range fl.Names {
						gist[n.Name] = expr(fset, fl.Type)
					}
				}
			}
		case strings.HasPrefix(base, "op_"):
			o, fn, err := readOp(fset, f, base)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %v", base, err)
			}
			byFunc[fn] = o
		}
	}
	var ops []*op
	for _, fn := range order {
		o, ok := byFunc[fn]
		if !ok {
			return nil, nil, fmt.Errorf("ops.go lists %s(), which no op_*.go declares", fn)
		}
		ops = append(ops, o)
		delete(byFunc, fn)
	}
	for fn, o := range byFunc {
		return nil, nil, fmt.Errorf("%s declares %s(), which ops.go's opLiteral does not list", o.File, fn)
	}
	return ops, gist, nil
}

// literalOrder is the spec functions opLiteral calls, in order.
func literalOrder(f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != "opLiteral" {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if id, ok := c.Fun.(*ast.Ident); ok {
					out = append(out, id.Name)
				}
			}
			return true
		})
	}
	return out
}

func structType(f *ast.File, name string) *ast.StructType {
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, sp := range gd.Specs {
			ts := sp.(*ast.TypeSpec)
			if st, ok := ts.Type.(*ast.StructType); ok && ts.Name.Name == name {
				return st
			}
		}
	}
	return nil
}

func expr(fset *token.FileSet, e ast.Expr) string {
	var b bytes.Buffer
	printer.Fprint(&b, fset, e)
	return b.String()
}

// readOp reads one op file: its Op const, its spec function (returning an
// OpSpec literal) and its two types.
func readOp(fset *token.FileSet, f *ast.File, base string) (*op, string, error) {
	o := &op{File: base}
	var fn string
	var specErr error
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok != token.CONST {
				continue
			}
			for _, sp := range d.Specs {
				vs := sp.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i >= len(vs.Values) || !strings.HasPrefix(n.Name, "Op") {
						continue
					}
					if bl, ok := vs.Values[i].(*ast.BasicLit); ok && bl.Kind == token.STRING {
						o.Name, _ = strconv.Unquote(bl.Value)
						o.Const = n.Name
					}
				}
			}
		case *ast.FuncDecl:
			ast.Inspect(d.Body, func(n ast.Node) bool {
				c, ok := n.(*ast.CompositeLit)
				if !ok {
					return true
				}
				if id, ok := c.Type.(*ast.Ident); !ok || id.Name != "OpSpec" {
					return true
				}
				fn = d.Name.Name
				for _, e := range c.Elts {
					kv, ok := e.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					switch k := kv.Key.(*ast.Ident).Name; k {
					case "NoAttach":
						if v, ok := kv.Value.(*ast.Ident); ok && v.Name == "true" {
							o.NoAttach = true
						}
					case "Fields", "Variant", "Variants", "Answers", "Args", "AnswerType":
						specErr = fmt.Errorf("%s's spec sets %s: that is read from %s and %s", d.Name.Name, k, TypeName(o.Name), AnswerName(o.Name))
					}
				}
				return false
			})
		}
	}
	if o.Name == "" || fn == "" {
		return nil, "", fmt.Errorf("no Op const or no OpSpec literal")
	}
	if specErr != nil {
		return nil, "", specErr
	}
	args := structType(f, TypeName(o.Name))
	ans := structType(f, AnswerName(o.Name))
	if args == nil || ans == nil {
		return nil, "", fmt.Errorf("op %s: declare %s and %s here", o.Name, TypeName(o.Name), AnswerName(o.Name))
	}
	var err error
	if o.Args, o.Embeds, err = fields(fset, args); err != nil {
		return nil, "", err
	}
	if o.Answer, _, err = fields(fset, ans); err != nil {
		return nil, "", err
	}
	for _, a := range o.Args {
		for k := range a.traits() {
			if !knownTraits[k] {
				return nil, "", fmt.Errorf("%s.%s: unknown dvv tag %q", TypeName(o.Name), a.GoName, k)
			}
		}
	}
	return o, fn, nil
}

// docAndNote splits a field's doc comment: the lines before one that
// starts "note:" are its help, that line's rest and the lines after it the
// note protocol.md shows beside the field (a default, a unit).
func docAndNote(text string) (doc, note string) {
	var d, n []string
	inNote := false
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, "note:"); ok && !inNote {
			inNote, line = true, rest
		}
		if inNote {
			n = append(n, line)
		} else {
			d = append(d, line)
		}
	}
	join := func(ls []string) string { return strings.Join(strings.Fields(strings.Join(ls, " ")), " ") }
	return join(d), join(n)
}

func fields(fset *token.FileSet, st *ast.StructType) ([]field, []string, error) {
	var out []field
	var embeds []string
	for _, fl := range st.Fields.List {
		if len(fl.Names) == 0 {
			embeds = append(embeds, expr(fset, fl.Type))
			continue
		}
		if len(fl.Names) != 1 || fl.Tag == nil {
			return nil, nil, fmt.Errorf("field %s: one name per line, with a json tag", fl.Names[0].Name)
		}
		tag, err := strconv.Unquote(fl.Tag.Value)
		if err != nil {
			return nil, nil, err
		}
		f := field{GoName: fl.Names[0].Name, Type: expr(fset, fl.Type), Tag: reflect.StructTag(tag)}
		if fl.Doc != nil {
			f.Doc, f.Note = docAndNote(fl.Doc.Text())
		}
		if f.JSON() == "" {
			return nil, nil, fmt.Errorf("field %s has no json name", f.GoName)
		}
		out = append(out, f)
	}
	return out, embeds, nil
}
