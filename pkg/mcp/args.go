package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/dvvhq/dvv/pkg/wire"
)

// Decode checks a tools/call's raw arguments against the tool's schema and
// the bridge's bounds, and decodes them into the op's typed arguments (a
// pointer to its wire.*Args, so the bridge may adjust them). Problems come
// back as BAD_REQUEST or TOO_LARGE naming the argument and what to send
// instead; what only dvvd can judge (a stale generation, a missing
// selector) is left to dvvd so there is one source of truth.
func (t *Tool) Decode(raw json.RawMessage) (wire.Args, *wire.Error) {
	args, werr := decodeObject(raw, t.Name)
	if werr != nil {
		return nil, werr
	}
	norm, werr := checkObject(t.Name, "", t.Args, args)
	if werr != nil {
		return nil, werr
	}
	if t.Name == "dvv_group_run" {
		if werr := checkGroupRun(norm); werr != nil {
			return nil, werr
		}
	}
	if t.Also != "" {
		// The arguments of the second op go to it (DecodeAlso).
		also := argsFields(t.alsoSpec().Args)
		own := argsFields(t.Spec().Args)
		for k := range norm {
			if _, mine := own[k]; !mine {
				if _, theirs := also[k]; theirs {
					delete(norm, k)
				}
			}
		}
	}
	return decodeOp(t.Name, t.Op, norm)
}

// DecodeAlso decodes the arguments a composite tool passes to its second
// op (Also): the selector and that op's own fields.
func (t *Tool) DecodeAlso(raw json.RawMessage) (wire.Args, *wire.Error) {
	args, werr := decodeObject(raw, t.Name)
	if werr != nil {
		return nil, werr
	}
	norm, werr := checkObject(t.Name, "", t.Args, args)
	if werr != nil {
		return nil, werr
	}
	also := argsFields(t.alsoSpec().Args)
	for k := range norm {
		if _, ok := also[k]; !ok {
			delete(norm, k)
		}
	}
	return decodeOp(t.Name, t.Also, norm)
}

func decodeOp(tool, op string, norm map[string]any) (wire.Args, *wire.Error) {
	spec, ok := wire.Spec(op)
	if !ok || spec.Args == nil {
		return nil, wire.Errorf(wire.Internal, "%s: op %q has no typed arguments in this build", tool, op)
	}
	t := struct{ Name string }{tool}
	line, err := json.Marshal(norm)
	if err != nil {
		return nil, wire.Errorf(wire.BadRequest, "%s: arguments cannot be encoded: %v", t.Name, err)
	}
	a := reflect.New(spec.Args)
	dec := json.NewDecoder(bytes.NewReader(line))
	// The schema check above already refused unknown names; this catches a
	// schema that lists a field its op does not take.
	dec.DisallowUnknownFields()
	if err := dec.Decode(a.Interface()); err != nil {
		return nil, &wire.Error{Code: wire.BadRequest, Message: fmt.Sprintf("%s: %v", t.Name, explainUnmarshal(err)),
			Next: "fix the argument as the message says; see the tool's input schema"}
	}
	return a.Interface().(wire.Args), nil
}

func decodeObject(raw json.RawMessage, tool string) (map[string]any, *wire.Error) {
	if len(raw) > MaxArgumentBytes {
		return nil, &wire.Error{Code: wire.TooLarge,
			Message: fmt.Sprintf("%s: the arguments are %d bytes; the limit is %d", tool, len(raw), MaxArgumentBytes),
			Next:    "send less; for a large file use dvv_files with from (a local path) instead of contentBase64"}
	}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, wire.Errorf(wire.BadRequest, "%s: arguments are not valid JSON: %v", tool, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, wire.Errorf(wire.BadRequest, "%s: arguments must be a JSON object, not %s", tool, jsonKind(v))
	}
	return m, nil
}

// checkObject validates m against args and returns a copy with numbers
// normalised (whole numbers as int64) and nulls dropped.
func checkObject(tool, prefix string, args []Arg, m map[string]any) (map[string]any, *wire.Error) {
	out := make(map[string]any, len(m)+1)
	for _, k := range sortedKeys(m) {
		a := findArg(args, k)
		if a == nil {
			return nil, &wire.Error{Code: wire.BadRequest,
				Message: fmt.Sprintf("%s: unknown argument %q", tool, prefix+k),
				Next:    "use only these argument names (case matters): " + argNames(args)}
		}
		if m[k] == nil {
			continue // JSON null: treated as absent
		}
		v, werr := checkValue(tool, prefix, a, m[k])
		if werr != nil {
			return nil, werr
		}
		out[k] = v
	}
	for i := range args {
		if args[i].Required {
			if _, ok := out[args[i].Name]; !ok {
				return nil, &wire.Error{Code: wire.BadRequest,
					Message: fmt.Sprintf("%s: missing required argument %q (%s)", tool, prefix+args[i].Name, args[i].Type),
					Next:    "pass " + prefix + args[i].Name + describeEnum(&args[i])}
			}
		}
	}
	return out, nil
}

func checkValue(tool, prefix string, a *Arg, v any) (any, *wire.Error) {
	name := prefix + a.Name
	typeErr := func() *wire.Error {
		return &wire.Error{Code: wire.BadRequest,
			Message: fmt.Sprintf("%s: argument %q must be %s %s, not %s", tool, name, article(a.Type), a.Type, jsonKind(v)),
			Next:    "send " + name + " as a JSON " + a.Type + describeEnum(a)}
	}
	switch a.Type {
	case TString:
		s, ok := v.(string)
		if !ok {
			return nil, typeErr()
		}
		limit := a.MaxBytes
		if limit == 0 {
			limit = DefaultMaxString
		}
		if len(s) > limit {
			return nil, &wire.Error{Code: wire.TooLarge,
				Message: fmt.Sprintf("%s: argument %q is %d bytes; the limit is %d", tool, name, len(s), limit),
				Next:    "send it in smaller pieces (several calls)"}
		}
		if len(a.Enum) > 0 && !slices.Contains(a.Enum, s) {
			return nil, &wire.Error{Code: wire.BadRequest,
				Message: fmt.Sprintf("%s: argument %q is %q, which is not one of %s", tool, name, clip(s), strings.Join(a.Enum, ", ")),
				Next:    "pass one of: " + strings.Join(a.Enum, ", ")}
		}
		return s, nil
	case TNumber:
		n, ok := v.(json.Number)
		if !ok {
			return nil, typeErr()
		}
		return checkNumber(tool, name, a, n)
	case TBoolean:
		if _, ok := v.(bool); !ok {
			return nil, typeErr()
		}
		return v, nil
	case TArray:
		list, ok := v.([]any)
		if !ok {
			return nil, typeErr()
		}
		if len(list) > MaxArrayItems {
			return nil, &wire.Error{Code: wire.TooLarge,
				Message: fmt.Sprintf("%s: argument %q has %d items; the limit is %d", tool, name, len(list), MaxArrayItems),
				Next:    "split the work over several calls"}
		}
		item := Arg{Name: a.Name, Type: a.Items}
		out := make([]any, len(list))
		for i, e := range list {
			ev, werr := checkValue(tool, prefix, &item, e)
			if werr != nil {
				werr.Message = strings.Replace(werr.Message, strconv.Quote(name), strconv.Quote(fmt.Sprintf("%s[%d]", name, i)), 1)
				return nil, werr
			}
			out[i] = ev
		}
		return out, nil
	case TObject:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, typeErr()
		}
		if a.Props == nil {
			return m, nil
		}
		return checkObject(tool, name+".", a.Props, m)
	}
	return nil, typeErr()
}

func checkNumber(tool, name string, a *Arg, n json.Number) (any, *wire.Error) {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, wire.Errorf(wire.BadRequest, "%s: argument %q is not a usable number (%s)", tool, name, clip(string(n)))
	}
	if !a.Whole {
		return f, nil
	}
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return i, nil
	}
	// 12.0 or 1e3 are whole numbers written another way.
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return nil, &wire.Error{Code: wire.BadRequest,
			Message: fmt.Sprintf("%s: argument %q must be a whole number, not %s", tool, name, clip(string(n))),
			Next:    "round it: " + name + " counts whole pixels, items or milliseconds"}
	}
	return int64(f), nil
}

// checkGroupRun validates group_run's inner arguments against the named
// single-limb tool, so a mistake is reported once rather than per member.
func checkGroupRun(norm map[string]any) *wire.Error {
	action, _ := norm["action"].(string)
	inner, ok := Lookup("dvv_" + action)
	if !ok {
		return wire.Errorf(wire.BadRequest, "dvv_group_run: action %q names no tool", action)
	}
	m, _ := norm["arguments"].(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	args := slices.DeleteFunc(slices.Clone(inner.Args), func(a Arg) bool {
		return a.Name == "limbId" || a.Name == "groupId" || a.Name == "member"
	})
	checked, werr := checkObject("dvv_group_run", "arguments.", args, m)
	if werr != nil {
		werr.Message += " (for action " + action + ")"
		return werr
	}
	norm["arguments"] = checked
	return nil
}

func findArg(args []Arg, name string) *Arg {
	for i := range args {
		if args[i].Name == name {
			return &args[i]
		}
	}
	return nil
}

func argNames(args []Arg) string {
	if len(args) == 0 {
		return "(this tool takes no arguments)"
	}
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
}

func describeEnum(a *Arg) string {
	if len(a.Enum) == 0 {
		return ""
	}
	return " (one of " + strings.Join(a.Enum, ", ") + ")"
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func article(typ string) string {
	if typ == TArray || typ == TObject {
		return "an"
	}
	return "a"
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// explainUnmarshal turns a decoding error into the argument it concerns.
func explainUnmarshal(err error) string {
	var te *json.UnmarshalTypeError
	if e, ok := err.(*json.UnmarshalTypeError); ok {
		te = e
	}
	if te != nil && te.Field != "" {
		return fmt.Sprintf("argument %q is out of range for %s", te.Field, te.Type)
	}
	return err.Error()
}
