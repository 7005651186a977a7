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
// the encoders of every type reachable from it, and wire.Request and
// wire.Response reach most of the protocol — well over a millisecond per
// `dvv` call. So requests are written and answers read one top-level field
// at a time, through encoding/json for each field's value: only the types
// actually present in a message get built. The bytes and values are
// encoding/json's own (codec_test.go holds them equal, fuzzed).

// encodeRequest is json.Marshal(req), field by field.
func encodeRequest(req *wire.Request) ([]byte, error) {
	return encodeStruct(reflect.ValueOf(req).Elem(), requestFields())
}

// decodeResponse is json.Unmarshal(line, resp), field by field.
func decodeResponse(line []byte, resp *wire.Response) error {
	return decodeStruct(line, reflect.ValueOf(resp).Elem(), responseFields())
}

var (
	requestFields  = sync.OnceValue(func() *fieldTable { return tableOf(reflect.TypeFor[wire.Request]()) })
	responseFields = sync.OnceValue(func() *fieldTable { return tableOf(reflect.TypeFor[wire.Response]()) })
)

// fieldTable is a struct's top-level JSON fields, in declaration order.
type fieldTable struct {
	fields []jsonField
	byName map[string]int
	// plain is false when the struct has a field this codec does not
	// reproduce (embedded, ",string"); then encoding/json does the work.
	plain bool
}

type jsonField struct {
	index     int
	name      string
	key       []byte // `"name":`
	omitEmpty bool
	omitZero  bool
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
		f := jsonField{index: i, name: name, key: quoteKey(name),
			omitEmpty: hasOption(opts, "omitempty"), omitZero: hasOption(opts, "omitzero")}
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

// quoteKey is `"name":` as encoding/json writes it.
func quoteKey(name string) []byte {
	for _, r := range name {
		if r >= 0x80 || r < 0x20 || strings.ContainsRune(`"\<>&`, r) {
			key, _ := json.Marshal(name)
			return append(key, ':')
		}
	}
	return append(append(append(make([]byte, 0, len(name)+3), '"'), name...), '"', ':')
}

func encodeStruct(v reflect.Value, tab *fieldTable) ([]byte, error) {
	if !tab.plain {
		return json.Marshal(v.Addr().Interface())
	}
	buf := make([]byte, 0, 128)
	buf = append(buf, '{')
	first := true
	for _, f := range tab.fields {
		fv := v.Field(f.index)
		if f.omitEmpty && isEmpty(fv) || f.omitZero && isZero(fv) {
			continue
		}
		// Through a pointer, as encoding/json sees a field of an addressed
		// struct: pointer-receiver MarshalJSON methods apply the same way.
		b, err := json.Marshal(fv.Addr().Interface())
		if err != nil {
			return nil, err
		}
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = append(buf, f.key...)
		buf = append(buf, b...)
	}
	return append(buf, '}'), nil
}

// isEmpty is encoding/json's omitempty test.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

type isZeroer interface{ IsZero() bool }

// isZero is encoding/json's omitzero test: the type's IsZero method when it
// has one, else the zero value.
func isZero(v reflect.Value) bool {
	if z, ok := v.Interface().(isZeroer); ok {
		if v.Kind() == reflect.Pointer && v.IsNil() {
			return true
		}
		return z.IsZero()
	}
	if z, ok := v.Addr().Interface().(isZeroer); ok {
		return z.IsZero()
	}
	return v.IsZero()
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
