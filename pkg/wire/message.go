package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
)

// Envelope is what any request line may carry beside its op's fields:
// the op, an id, and on a connection's first request the attachment's
// name, token and session. Every op's Args embeds it, so one strict decode
// of a line fills the envelope and the op's fields and refuses any other.
// (Its op is OpName on the Go side: Args answer their op by Op().)
type Envelope struct {
	OpName  string          `json:"op,omitempty"`
	ID      json.RawMessage `json:"id,omitempty"`
	Name    string          `json:"name,omitempty"`
	Token   string          `json:"token,omitempty"`
	Session string          `json:"session,omitempty"`
}

// Head is the envelope of the Args that embeds it.
func (e *Envelope) Head() *Envelope { return e }

// Enveloped is a pointer to an op's Args: it carries its envelope.
type Enveloped interface {
	Args
	Head() *Envelope
}

// DecodeLine decodes one request line of op s straight into a new value
// of the op's Args (a pointer: *ClickArgs, …), envelope included. A field
// the op does not take, a value of the wrong type or a second object on
// the line is BAD_REQUEST naming it.
func (s *OpSpec) DecodeLine(line []byte) (Enveloped, *Error) {
	a, werr := s.newArgs()
	if werr != nil {
		return nil, werr
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(a); err != nil {
		return nil, s.explain(err)
	}
	if dec.More() {
		return nil, Errorf(BadRequest, "one JSON object per line; found more after it")
	}
	return a, nil
}

// newArgs is a pointer to a new value of the op's Args.
func (s *OpSpec) newArgs() (Enveloped, *Error) {
	if s.Args == nil {
		return nil, Errorf(Internal, "op %s names no Args type", s.Name)
	}
	a, ok := reflect.New(s.Args).Interface().(Enveloped)
	if !ok {
		return nil, Errorf(Internal, "op %s's Args %v does not embed wire.Envelope", s.Name, s.Args)
	}
	return a, nil
}

// explain turns a decoder's error into the refusal Check would give: the
// field named, and what the op takes.
func (s *OpSpec) explain(err error) *Error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return Errorf(BadRequest, "field %q must be %s, not a JSON %s", s.trimPath(te.Field), te.Type, te.Value)
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		name = strings.Trim(name, `"`)
		if knownFields()[name] {
			return Errorf(BadRequest, "%s does not take %q; its fields are: %s", s.Name, name, s.FieldNames())
		}
	}
	return Errorf(BadRequest, "malformed request: %v", err)
}

// trimPath drops the Go names of the line's embedded structs from a
// decoder's field path (ClickArgs.Target.limbId → limbId).
func (s *OpSpec) trimPath(p string) string {
	for _, prefix := range []string{"Envelope.", s.Args.Name() + ".", "Target."} {
		p = strings.TrimPrefix(p, prefix)
	}
	return p
}

// jsonFields are a struct type's JSON fields: in order, and by name, with
// their index paths (the embedded selector's and envelope's included).
type jsonFields struct {
	names []string
	paths [][]int
	index map[string][]int
}

var fieldIndexes sync.Map // reflect.Type → *jsonFields

func fieldsOf(t reflect.Type) *jsonFields {
	if fs, ok := fieldIndexes.Load(t); ok {
		return fs.(*jsonFields)
	}
	fs := &jsonFields{index: map[string][]int{}}
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous || !f.IsExported() {
			continue
		}
		if name := jsonName(f); name != "" {
			if _, seen := fs.index[name]; !seen {
				fs.names, fs.paths = append(fs.names, name), append(fs.paths, f.Index)
				fs.index[name] = f.Index
			}
		}
	}
	fieldIndexes.Store(t, fs)
	return fs
}

func indexOf(t reflect.Type) map[string][]int { return fieldsOf(t).index }

// FieldOf is the field with that JSON name of a message: a pointer to an
// op's Args (the generic checks read by the spec's names, policy by tag). ok is false when the message has no such
// field.
func FieldOf(m any, name string) (f reflect.Value, ok bool) {
	v := reflect.ValueOf(m)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return reflect.Value{}, false
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	i, ok := indexOf(v.Type())[name]
	if !ok {
		return reflect.Value{}, false
	}
	return v.FieldByIndex(i), true
}

// Has reports whether message m carries the field (a non-zero value).
func Has(m any, name string) bool {
	f, ok := FieldOf(m, name)
	return ok && !f.IsZero()
}

// knownFields are the fields some op of dvv's table takes: a request
// carrying one its op does not is told the op's fields, one no op has is
// malformed.
var knownFields = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, s := range Ops() {
		for _, f := range s.Fields {
			m[f.Name] = true
		}
	}
	return m
})
