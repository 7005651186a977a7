package mcp

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/pkg/wire"
)

// referenceToolCount is how many tools the tool reference (the seed
// spec) gives the bridge.
const referenceToolCount = 25

// TestToolCount: the manifest has exactly the reference's tools, in its
// order, and ToolCount is their number.
func TestToolCount(t *testing.T) {
	ref := loadReference(t)
	if len(ref) != referenceToolCount {
		t.Fatalf("reference transcription has %d tools; the tool reference has %d", len(ref), referenceToolCount)
	}
	if len(Tools) != len(ref) || ToolCount != len(ref) {
		t.Fatalf("manifest has %d tools (ToolCount %d); the reference %d", len(Tools), ToolCount, len(ref))
	}
	for i, rt := range ref {
		if Tools[i].Name != rt.Name {
			t.Errorf("tool %d is %s; the reference lists %s there", i, Tools[i].Name, rt.Name)
		}
	}
	seen := map[string]bool{}
	for _, tool := range Tools {
		if seen[tool.Name] {
			t.Errorf("tool %s listed twice", tool.Name)
		}
		seen[tool.Name] = true
		if tool.Op != strings.TrimPrefix(tool.Name, "dvv_") {
			t.Errorf("%s forwards to op %q; ops are the tool names without dvv_", tool.Name, tool.Op)
		}
	}
}

type refArg struct {
	Type       string            `json:"type"`
	Enum       []string          `json:"enum"`
	Items      string            `json:"items"`
	Properties map[string]string `json:"properties"`
}

type refTool struct {
	Name     string            `json:"name"`
	Trio     bool              `json:"trio"`
	Args     map[string]refArg `json:"args"`
	Required []string          `json:"required"`
}

func loadReference(t *testing.T) []refTool {
	t.Helper()
	b, err := os.ReadFile("testdata/reference_tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct{ Tools []refTool }
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	return ref.Tools
}

// publishedSchema is the schema exactly as a client sees it in tools/list.
func publishedSchema(t *testing.T, tool *Tool) map[string]any {
	t.Helper()
	b, err := json.Marshal(tool.sdkTool().InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSchemasMatchReference pins every tool's input schema to the tool
// reference: names, argument names, types, enums and required fields. A
// drift in either direction fails here.
func TestSchemasMatchReference(t *testing.T) {
	ref := loadReference(t)
	if len(ref) != ToolCount {
		t.Fatalf("reference transcription has %d tools, want %d", len(ref), ToolCount)
	}
	for i, rt := range ref {
		if Tools[i].Name != rt.Name {
			t.Errorf("tool %d is %s; the reference lists %s there", i, Tools[i].Name, rt.Name)
			continue
		}
		want := rt.Args
		if rt.Trio {
			want["limbId"] = refArg{Type: "string"}
			want["groupId"] = refArg{Type: "string"}
			want["member"] = refArg{Type: "number"}
		}
		s := publishedSchema(t, &Tools[i])
		if s["type"] != "object" {
			t.Errorf("%s: schema type %v", rt.Name, s["type"])
		}
		props, _ := s["properties"].(map[string]any)
		for name := range props {
			if _, ok := want[name]; !ok {
				t.Errorf("%s: argument %q is not in the reference", rt.Name, name)
			}
		}
		for name, wa := range want {
			p, ok := props[name].(map[string]any)
			if !ok {
				t.Errorf("%s: reference argument %q missing", rt.Name, name)
				continue
			}
			checkArg(t, rt.Name+"."+name, wa, p)
		}
		var req []string
		if r, ok := s["required"].([]any); ok {
			for _, x := range r {
				req = append(req, x.(string))
			}
		}
		slices.Sort(req)
		wantReq := slices.Clone(rt.Required)
		slices.Sort(wantReq)
		if !slices.Equal(req, wantReq) {
			t.Errorf("%s: required %v, reference says %v", rt.Name, req, wantReq)
		}
	}
}

func checkArg(t *testing.T, where string, want refArg, got map[string]any) {
	t.Helper()
	if got["type"] != want.Type {
		t.Errorf("%s: type %v, reference says %s", where, got["type"], want.Type)
	}
	var enum []string
	if e, ok := got["enum"].([]any); ok {
		for _, x := range e {
			enum = append(enum, x.(string))
		}
	}
	if !slices.Equal(enum, want.Enum) {
		t.Errorf("%s: enum %v, reference says %v", where, enum, want.Enum)
	}
	if want.Items != "" {
		items, _ := got["items"].(map[string]any)
		if items == nil || items["type"] != want.Items {
			t.Errorf("%s: items %v, reference says %s", where, got["items"], want.Items)
		}
	} else if got["items"] != nil {
		t.Errorf("%s: has items; the reference says %s", where, want.Type)
	}
	if want.Properties != nil {
		props, _ := got["properties"].(map[string]any)
		if len(props) != len(want.Properties) {
			t.Errorf("%s: properties %v, reference says %v", where, props, want.Properties)
		}
		for name, typ := range want.Properties {
			p, _ := props[name].(map[string]any)
			if p == nil || p["type"] != typ {
				t.Errorf("%s.%s: %v, reference says %s", where, name, p, typ)
			}
		}
	}
}

// Every tool that lists the selector trio has all three, and dvv_close
// takes only limbId.
func TestSelectorTrio(t *testing.T) {
	for _, rt := range loadReference(t) {
		tool, _ := Lookup(rt.Name)
		_, l := tool.arg("limbId")
		_, g := tool.arg("groupId")
		_, m := tool.arg("member")
		if rt.Trio && !(l && g && m) {
			t.Errorf("%s lacks part of the selector trio", rt.Name)
		}
		if !rt.Trio && m {
			t.Errorf("%s takes member but the reference gives it no trio", rt.Name)
		}
	}
	close, _ := Lookup("dvv_close")
	if len(close.Args) != 1 || !close.Args[0].Required {
		t.Errorf("dvv_close must take only limbId, required: %+v", close.Args)
	}
}

// TestDescriptions: every code a tool can answer is named to the agent, in
// its description or, for the codes any tool can answer, in the
// instructions.
func TestDescriptions(t *testing.T) {
	in := Instructions()
	for i := range Tools {
		tool := &Tools[i]
		d := tool.Description()
		if len(tool.Doc) < 60 || tool.Title == "" {
			t.Errorf("%s: description or title too thin", tool.Name)
		}
		for _, c := range tool.Raises() {
			if !c.Known() {
				t.Errorf("%s raises unknown code %s", tool.Name, c)
			}
			if everyTool(c) && !strings.Contains(in, string(c)) {
				t.Errorf("%s: the instructions do not name %s, which any tool may answer", tool.Name, c)
			}
			if !everyTool(c) && !strings.Contains(d, string(c)) {
				t.Errorf("%s: description does not name %s", tool.Name, c)
			}
		}
		for _, a := range tool.Args {
			if a.Doc == "" {
				t.Errorf("%s.%s has no description", tool.Name, a.Name)
			}
		}
	}
}

func TestInstructionsNameTheFourCodes(t *testing.T) {
	in := Instructions()
	for _, want := range []string{"LIMB_GONE", "GEOMETRY_CHANGED", "SCREEN_CHANGED", "LEASE_REVOKED",
		"`dvv_limbs`", "`dvv_screen`", "yield_status", "human_took_over", "DAEMON_UNAVAILABLE"} {
		if !strings.Contains(in, want) {
			t.Errorf("instructions do not mention %s:\n%s", want, in)
		}
	}
}

// TestToolsDocCurrent fails when docs/tools.md was not regenerated after a
// manifest change.
func TestToolsDocCurrent(t *testing.T) {
	var b bytes.Buffer
	if err := WriteToolsDoc(&b); err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("../../docs/tools.md")
	if err != nil {
		t.Fatalf("docs/tools.md: %v; run `%s`", err, DocsCommand)
	}
	if !bytes.Equal(have, b.Bytes()) {
		t.Fatalf("docs/tools.md is stale; run `%s`", DocsCommand)
	}
}

// referenceCodes are the codes the tool reference names beside each tool
// (the four codes of the loop are named for every tool that can meet them).
var referenceCodes = map[string][]wire.Code{
	"dvv_hosts":     {wire.PolicyDenied},
	"dvv_open":      {wire.BadRequest, wire.SlotRefused},
	"dvv_control":   {wire.LeaseNotHeld, wire.LeaseRevoked, wire.Timeout},
	"dvv_click":     {wire.GeometryChanged, wire.Unfenced, wire.OutOfBounds, wire.WrongProtocol, wire.LimbGone, wire.LeaseRevoked},
	"dvv_type":      {wire.ScreenChanged, wire.WrongProtocol, wire.LimbGone, wire.LeaseRevoked},
	"dvv_key":       {wire.ScreenChanged, wire.UnknownKey, wire.LimbGone, wire.LeaseRevoked},
	"dvv_screen":    {wire.LimbGone},
	"dvv_wait":      {wire.NotReady, wire.NotConnected, wire.Timeout, wire.LimbGone},
	"dvv_clipboard": {wire.NotImplemented, wire.PolicyDenied},
	"dvv_run":       {wire.PolicyDenied},
	"dvv_term_read": {wire.NotImplemented},
	"dvv_files":     {wire.FilesUnavailable},
	"dvv_status":    {wire.LimbGone},
	"dvv_signals":   {wire.LimbGone},
}

// TestToolsRaiseWhatTheReferenceNames: every code the reference names for
// a tool is in the list the tool (and dvvd, through pkg/wire's op table)
// declares, and every declared code is a known one.
func TestToolsRaiseWhatTheReferenceNames(t *testing.T) {
	for name, want := range referenceCodes {
		tool, ok := Lookup(name)
		if !ok {
			t.Fatalf("no tool %s", name)
		}
		for _, c := range want {
			if !tool.Spec().CanRaise(c) {
				t.Errorf("%s: the reference names %s but op %s does not declare it", name, c, tool.Op)
			}
		}
	}
}
