package wire

//go:generate go run ../../internal/gen/args ../..

import (
	"fmt"
	"reflect"
	"strings"
)

// Args is one op's typed arguments: ClickArgs, ScreenArgs, … (each
// declared in its op_<name>.go; its methods and the spec's fields are
// generated from it into op_<name>_gen.go by internal/gen/args). Each
// embeds the Envelope and carries exactly the fields its spec lists; it is
// the request's wire format: dvvd decodes a line straight into it, and a
// client encodes it (Envelop, then encoding/json).
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

// Envelop is a copy of a that carries its envelope, with its op set: the
// request line a client encodes, which it may still edit (an id, a field
// stripped). The copy is shallow, as assigning a struct is.
func Envelop(a Args) Enveloped {
	v := reflect.ValueOf(a)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	p := reflect.New(v.Type())
	p.Elem().Set(v)
	e, ok := p.Interface().(Enveloped)
	if !ok {
		panic(fmt.Sprintf("wire: %T does not embed wire.Envelope", a)) // TestArgsMatchSpec holds every generated one to it
	}
	e.Head().OpName = a.Op()
	return e
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	return name
}
