package mcp

import (
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	resolvedMu sync.Mutex
	resolved   = map[string]*jsonschema.Resolved{}
)

// outputSchemaOf resolves a tool's declared output schema once.
func outputSchemaOf(t *testing.T, tool *Tool) *jsonschema.Resolved {
	t.Helper()
	resolvedMu.Lock()
	defer resolvedMu.Unlock()
	if rs, ok := resolved[tool.Name]; ok {
		return rs
	}
	raw, err := json.Marshal(tool.OutputSchema())
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s: output schema does not parse: %v", tool.Name, err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: output schema does not resolve: %v", tool.Name, err)
	}
	resolved[tool.Name] = rs
	return rs
}

// checkOutput validates a result's structuredContent against the tool's
// output schema, as a client that validates would.
func checkOutput(t *testing.T, name string, res *sdk.CallToolResult) {
	t.Helper()
	tool, ok := Lookup(name)
	if !ok || res == nil {
		return
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatalf("%s: structuredContent does not encode: %v", name, err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	if err := outputSchemaOf(t, tool).Validate(v); err != nil {
		t.Errorf("%s: structuredContent does not match the declared outputSchema: %v\n%s", name, err, raw)
	}
}

// TestEveryToolDeclaresAnOutputSchema, and each one resolves.
func TestEveryToolDeclaresAnOutputSchema(t *testing.T) {
	for i := range Tools {
		tool := &Tools[i]
		if s := tool.sdkTool().OutputSchema; s == nil {
			t.Errorf("%s declares no outputSchema", tool.Name)
		}
		outputSchemaOf(t, tool)
	}
}

// TestOutputSchemaRefusesWhatIsNotSent: the schemas are closed, so a field
// the wire types do not have, or another op's result, does not validate.
func TestOutputSchemaRefusesWhatIsNotSent(t *testing.T) {
	tool, _ := Lookup("dvv_status")
	rs := outputSchemaOf(t, tool)
	for _, bad := range []string{`{"result":"status","bogus":1}`, `{"result":"click"}`, `{"error":{"code":"LIMB_GONE"}}`,
		`{"result":"status","screen":{"width":1}}`, `{"result":"status","observation":[]}`} {
		var v any
		json.Unmarshal([]byte(bad), &v)
		if rs.Validate(v) == nil {
			t.Errorf("%s validates against dvv_status's outputSchema", bad)
		}
	}
	for _, good := range []string{`{"result":"status","limbId":"vnc-1"}`,
		`{"result":"error","error":{"code":"LIMB_GONE","message":"gone","next":"dvv_limbs"}}`} {
		var ok any
		json.Unmarshal([]byte(good), &ok)
		if err := rs.Validate(ok); err != nil {
			t.Errorf("%s: %v", good, err)
		}
	}
}

// TestOutputSchemaIsTheOpsAnswer: each tool's outputSchema lists exactly
// its op's answer fields from the op table, beside result, error,
// observation and bridgeNote, and holds no branch for any other answer.
func TestOutputSchemaIsTheOpsAnswer(t *testing.T) {
	for i := range Tools {
		tool := &Tools[i]
		s := tool.OutputSchema()
		props, _ := s["properties"].(map[string]any)
		want := map[string]bool{"result": true, "error": true, "observation": true, "bridgeNote": true}
		for _, f := range tool.Spec().AnswerFields() {
			want[f] = true
		}
		for name := range props {
			if !want[name] {
				t.Errorf("%s: outputSchema has %s, which op %s does not answer", tool.Name, name, tool.Op)
			}
		}
		for name := range want {
			if props[name] == nil {
				t.Errorf("%s: outputSchema lacks %s", tool.Name, name)
			}
		}
		for _, k := range []string{"anyOf", "oneOf", "allOf"} {
			if s[k] != nil {
				t.Errorf("%s: outputSchema has %s branches", tool.Name, k)
			}
		}
		if res, _ := props["result"].(map[string]any); !slices.Equal(res["enum"].([]string), []string{tool.Op, "error"}) {
			t.Errorf("%s: result is %v", tool.Name, res)
		}
	}
}

// TestInputSchemasStateWhatDvvdEnforces: whole numbers say multipleOf 1,
// and the op table's bounds appear as minimum and maximum.
func TestInputSchemasStateWhatDvvdEnforces(t *testing.T) {
	prop := func(tool, arg string) map[string]any {
		tl, _ := Lookup(tool)
		p, _ := tl.InputSchema()["properties"].(map[string]any)
		s, _ := p[arg].(map[string]any)
		if s == nil {
			t.Fatalf("%s has no %s", tool, arg)
		}
		return s
	}
	cases := []struct {
		tool, arg, key string
		want           any
	}{
		{"dvv_click", "x", "multipleOf", 1},
		{"dvv_click", "x", "type", "number"},
		{"dvv_click", "clicks", "minimum", int64(1)},
		{"dvv_click", "clicks", "maximum", int64(100)},
		{"dvv_wait", "quietMs", "minimum", int64(0)},
		{"dvv_control", "waitMs", "minimum", int64(0)},
		{"dvv_open", "port", "maximum", int64(65535)},
		{"dvv_group_shrink", "n", "minimum", int64(1)},
		{"dvv_screen", "scale", "maximum", 1},
	}
	for _, c := range cases {
		if got := prop(c.tool, c.arg)[c.key]; got != c.want {
			t.Errorf("%s.%s %s = %v (%T), want %v", c.tool, c.arg, c.key, got, got, c.want)
		}
	}
	for i := range Tools {
		tool := &Tools[i]
		for _, a := range tool.Args {
			f, ok := tool.Spec().Field(a.Name)
			if !ok {
				t.Errorf("%s takes %s, which op %s does not", tool.Name, a.Name, tool.Op)
				continue
			}
			if f.Min != nil && prop(tool.Name, a.Name)["minimum"] == nil {
				t.Errorf("%s.%s: the op's minimum is not in the schema", tool.Name, a.Name)
			}
		}
	}
}
