package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/dvvhq/dvv/pkg/wire"
)

// The CLI is a short-lived process: it sends one request and reads one or
// two answers. encoding/json, on its first use of a struct type, builds
// the decoders of every type reachable from it, and wire.Response reaches
// most of the protocol — well over a millisecond per `dvv` call. So an
// answer is read one top-level field at a time, through encoding/json for
// each field's value: only the types actually present in a line get built.
// The values are encoding/json's own (codec_test.go holds them equal,
// fuzzed). A request is an op's small Args struct, which encoding/json
// writes directly (encodeArgs).

// encodeArgs is a's request line with the id given.
func encodeArgs(a wire.Args, id json.RawMessage) ([]byte, error) {
	e := wire.Envelop(a)
	e.Head().ID = id
	return json.Marshal(e)
}

// decodeResponse is json.Unmarshal(line, resp), field by field.
func decodeResponse(line []byte, resp *wire.Response) error {
	return decodeStruct(line, reflect.ValueOf(resp).Elem(), responseFields())
}

var responseFields = sync.OnceValue(func() *fieldTable { return tableOf(reflect.TypeFor[wire.Response]()) })

// fieldTable is a struct's top-level JSON fields, in declaration order.
type fieldTable struct {
	fields []jsonField
	byName map[string]int
	// plain is false when the struct has a field this codec does not
	// reproduce (embedded, ",string"); then encoding/json does the work.
	plain bool
}

type jsonField struct {
	index int
	name  string
}

func tableOf(t reflect.Type) *fieldTable {
	tab := &fieldTable{fields: make([]jsonField, 0, t.NumField()), byName: make(map[string]int, t.NumField()), plain: true}
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" || !sf.IsExported() && !sf.Anonymous {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if sf.Anonymous || hasOption(opts, "string") {
			tab.plain = false
		}
		if name == "" {
			name = sf.Name
		}
		f := jsonField{index: i, name: name}
		if _, dup := tab.byName[name]; dup {
			tab.plain = false // encoding/json's rules for clashing names
		}
		tab.byName[name] = len(tab.fields)
		tab.fields = append(tab.fields, f)
	}
	return tab
}

func hasOption(opts, o string) bool {
	for opts != "" {
		var opt string
		opt, opts, _ = strings.Cut(opts, ",")
		if opt == o {
			return true
		}
	}
	return false
}

func decodeStruct(line []byte, v reflect.Value, tab *fieldTable) error {
	// Anything but a well-formed object goes the standard way, so every
	// error and odd case is encoding/json's own.
	trimmed := bytes.TrimLeft(line, " \t\r\n")
	if !tab.plain || len(trimmed) == 0 || trimmed[0] != '{' {
		return json.Unmarshal(line, v.Addr().Interface())
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if _, err := dec.Token(); err != nil { // {
		return err
	}
	var firstErr error
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		name, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		i, ok := tab.byName[name]
		if !ok {
			i = tab.fold(name)
		}
		if i < 0 {
			continue // unknown fields are ignored, as encoding/json does
		}
		f := tab.fields[i]
		err = json.Unmarshal(raw, v.Field(f.index).Addr().Interface())
		if err != nil && firstErr == nil {
			// encoding/json goes on past a value of the wrong type and
			// reports the first; it names the field as a path.
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				te.Struct = v.Type().Name()
				if te.Field == "" {
					te.Field = f.name
				} else {
					te.Field = f.name + "." + te.Field
				}
			}
			firstErr = err
		}
	}
	if _, err := dec.Token(); err != nil { // }
		return err
	}
	if rest := bytes.TrimLeft(trimmed[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return fmt.Errorf("json: invalid character %q after top-level value", rest[0])
	}
	return firstErr
}

// fold finds a field whose name matches case-insensitively (encoding/json
// accepts "Result" for "result"), or -1.
func (t *fieldTable) fold(name string) int {
	for i, f := range t.fields {
		if strings.EqualFold(f.name, name) {
			return i
		}
	}
	return -1
}
