package wire

//go:generate go run ../../internal/gen/args ../..

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// Args is one op's typed arguments: ClickArgs, ScreenArgs, … (args_gen.go,
// written by internal/gen/args from Ops and Request). Each embeds the
// Envelope and carries exactly the fields its spec lists, under the same
// JSON names and Go types as Request's, so the socket format is the same
// whichever side is typed; dvvd decodes a line straight into it.
type Args interface {
	Op() string
}

// Target is the selector trio that limb ops embed: one limb by id, or a
// member of a group.
type Target struct {
	LimbID  string `json:"limbId,omitempty"`
	GroupID string `json:"groupId,omitempty"`
	Member  *int   `json:"member,omitempty"`
}

// Target is the request's selector.
func (r *Request) Target() Target {
	return Target{LimbID: r.LimbID, GroupID: r.GroupID, Member: r.Member}
}

// argsPlan maps the fields of one Args type to Request's, by JSON name.
type argsPlan struct {
	args, req [][]int // field index paths, pairwise
}

var plans sync.Map // reflect.Type → *argsPlan or error

func planFor(t reflect.Type) (*argsPlan, error) {
	if p, ok := plans.Load(t); ok {
		if err, bad := p.(error); bad {
			return nil, err
		}
		return p.(*argsPlan), nil
	}
	p, err := makePlan(t)
	if err != nil {
		plans.Store(t, err)
		return nil, err
	}
	plans.Store(t, p)
	return p, nil
}

func makePlan(t reflect.Type) (*argsPlan, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("wire: %v is not a struct", t)
	}
	rt := reflect.TypeFor[Request]()
	p := &argsPlan{}
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous || !f.IsExported() {
			continue
		}
		name := jsonName(f)
		if name == "" || inEnvelope(t, f) {
			continue // the envelope is the request's own, not an op field
		}
		i, ok := requestFields()[name]
		if !ok {
			return nil, fmt.Errorf("wire: %v.%s: %q is not a Request field", t, f.Name, name)
		}
		if rf := rt.Field(i); rf.Type != f.Type {
			return nil, fmt.Errorf("wire: %v.%s is %v, Request.%s is %v", t, f.Name, f.Type, rf.Name, rf.Type)
		}
		p.args = append(p.args, f.Index)
		p.req = append(p.req, []int{i})
	}
	return p, nil
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	return name
}

// RequestOf is the request that carries a's op and fields: what a typed
// client sends.
func RequestOf(a Args) *Request {
	req := &Request{Op: a.Op()}
	v := reflect.ValueOf(a)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	p, err := planFor(v.Type())
	if err != nil {
		panic(err) // a type that does not fit Request is a bug TestArgsMatchSpec catches
	}
	rv := reflect.ValueOf(req).Elem()
	for i := range p.args {
		rv.FieldByIndex(p.req[i]).Set(v.FieldByIndex(p.args[i]))
	}
	return req
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
