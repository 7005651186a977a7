package cli

import (
	"fmt"
	"strings"

	"github.com/dvvhq/dvv/pkg/wire"
)

// What the CLI says about an op's closed sets of values — flag help, usage
// errors, completion — is read from pkg/wire's op table, so the CLI cannot
// offer a value dvvd refuses or leave out one it takes.

// opSpec is an op's spec; every op the CLI names is in the table.
func opSpec(op string) *wire.OpSpec {
	s, ok := wire.Spec(op)
	if !ok {
		panic("cli: op " + op + " is not in pkg/wire's op table")
	}
	return s
}

// variants is an op's closed set of variants, in documentation order.
func variants(op string) []string { return opSpec(op).Variants }

// opField is one of an op's fields.
func opField(op, name string) *wire.Field {
	f, ok := opSpec(op).Field(name)
	if !ok {
		panic(fmt.Sprintf("cli: op %s has no field %q", op, name))
	}
	return f
}

// fieldValues is the closed set of values of an op's field.
func fieldValues(op, name string) []string { return opField(op, name).Values }

// fieldHelp is the field's help text, the doc comment its op's Args give
// it (the MCP tool's argument says the same), written as flag help is: a
// lower-case start and no full stop.
func fieldHelp(op, name string) string {
	h := strings.TrimSuffix(opField(op, name).Help, ".")
	if len(h) > 1 && h[0] >= 'A' && h[0] <= 'Z' && (h[1] < 'A' || h[1] > 'Z') {
		h = string(h[0]+'a'-'A') + h[1:]
	}
	return h
}

// orList writes values as prose: "a, b or c".
func orList(values []string) string {
	if len(values) < 2 {
		return strings.Join(values, "")
	}
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}

// pipeList writes values as a usage line does: "a|b|c".
func pipeList(values []string) string { return strings.Join(values, "|") }
