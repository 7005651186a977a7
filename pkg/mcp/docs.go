package mcp

import (
	_ "embed"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/dvvhq/dvv/pkg/wire"
)

// DocsCommand regenerates docs/tools.md; a test fails when the file is stale.
const DocsCommand = "go run ./cmd/dvvmcp --gen-docs > docs/tools.md"

// WriteToolsDoc writes docs/tools.md from the manifest.
func WriteToolsDoc(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# MCP tools\n\n")
	b.WriteString("<!-- Generated from pkg/mcp's manifest by `" + DocsCommand + "`. Do not edit by hand. -->\n\n")
	fmt.Fprintf(&b, "By default `dvvmcp` exposes exactly %d tools over MCP (stdio): the tool reference's, marked **reference** below. "+
		"`--tools SET[,SET…]` (or `DVV_MCP_TOOLS`) adds dvv's own tools in named sets, marked **dvv** with their set: %s; `all` is every set "+
		"(see [Tool sets](#tool-sets)). Each tool forwards to the dvvd operation of the same "+
		"name without the `dvv_` prefix, with the same argument names (`dvv_click_text` reads with `find`, then sends a `click`). "+
		"How to configure a client: [mcp-clients.md](mcp-clients.md).\n\n", ToolCount, setList())
	b.WriteString("## Conventions\n\n")
	b.WriteString("- **Selector trio.** Limb tools take `limbId`, or `groupId` plus `member`, so a tool reads the same for one machine or a hundred.\n")
	b.WriteString("- **Generation.** Every coordinate carries the `geometry.generation` it was computed against; a click without it is refused (UNFENCED).\n")
	b.WriteString("- **Dispatch is not proof.** Acts answer `dispatched`; only a later `dvv_screen` or `dvv_wait` shows their effect.\n")
	b.WriteString("- **Results.** Every call returns a text block and `structuredContent` (dvvd's answer, described by the tool's " +
		"`outputSchema`: see [Output schemas](#output-schemas)). `dvv_screen` adds an image block " +
		"(PNG; when dvvmcp runs with `--jpeg` or `DVV_MCP_IMAGE=jpeg`, whichever of PNG and JPEG is smaller for that picture, " +
		"named by the block's `mimeType`) with the `imageSpace` line beside it.\n")
	fmt.Fprintf(&b, "- **Image budget.** MCP clients resize pictures whose long edge is over %d px or that hold more than about "+
		"%.2f megapixels, which would put the model's coordinates in a space the imageSpace line does not describe. A `dvv_screen` "+
		"of the whole frame without `scale` is therefore halved (1/2, 1/4, 1/8) until it fits both: a 1920x1080 desktop comes at "+
		"scale 0.5 (native = image × 2). `--image-max-edge` and `--image-max-pixels` (or `DVV_MCP_IMAGE_MAX_EDGE`, "+
		"`DVV_MCP_IMAGE_MAX_PIXELS`) change the budget; 0 turns a limit off. An explicit `scale` is always obeyed.\n",
		DefaultImageBudget.MaxEdge, float64(DefaultImageBudget.MaxPixels)/1e6)
	b.WriteString("- **Errors** are tool results with `isError: true`: `CODE: reason`, then `Next: what to do`, and `structuredContent.error` " +
		"with `code`, `message`, `next` beside `result: \"error\"` (plus the fresh observation when dvvd sent one). Bad arguments are reported the same way " +
		"(BAD_REQUEST or TOO_LARGE) before anything reaches dvvd; only an unknown tool name is a JSON-RPC error (-32602), as MCP prescribes.\n")
	b.WriteString("- **Attachment.** One per dvvmcp process, named after the MCP client (`clientInfo.name`), with `DVV_TOKEN` when set. " +
		"If dvvd is not running every tool answers DAEMON_UNAVAILABLE and dvvmcp stays up; if dvvd restarts, the next call reconnects " +
		"and its answer carries `bridgeNote` saying leases were lost.\n")
	b.WriteString("- **Closed schemas.** Argument names are exactly the tool reference's (`additionalProperties: false`); an unknown or " +
		"misspelt name is refused with BAD_REQUEST listing the accepted ones. Numbers that count pixels, items or milliseconds must be " +
		"whole; `scale` may be fractional. `region` needs all four of x, y, w, h.\n")
	fmt.Fprintf(&b, "- **JSON-RPC.** A stdio line that is not JSON is answered -32700 (id null) and the session goes on; a request "+
		"before `initialize` is answered -32600. A request the client cancels (`notifications/cancelled`) is not answered, "+
		"and the dvvd call it started is withdrawn. When the client closes stdin, every call in flight is still answered "+
		"before dvvmcp exits (after %.0f s, or at SIGTERM, as a TIMEOUT tool error saying it was cancelled). "+
		"initialize advertises the tools capability only; resources/* and prompts/* answer -32601.\n", DrainTimeout.Seconds())
	fmt.Fprintf(&b, "- **Bounds.** Strings up to %d KiB; `text` and `bytesHex` up to %d MiB (hex: %d MiB); `contentBase64` up to %d MiB; "+
		"arrays up to %d items; all arguments together up to %d MiB. A JSON-RPC frame over %d MiB ends the stdio session.\n\n",
		DefaultMaxString>>10, MaxText>>20, (2*MaxText)>>20, MaxContentBase64>>20, MaxArrayItems, MaxArgumentBytes>>20, MaxFrameBytes>>20)

	b.WriteString("## Tools\n\n")
	for i := range Tools {
		t := &Tools[i]
		fmt.Fprintf(&b, "- [`%s`](#%s) — %s (reference)\n", t.Name, t.Name, t.Title)
	}
	for _, set := range Sets {
		for i := range set.Tools {
			t := &set.Tools[i]
			fmt.Fprintf(&b, "- [`%s`](#%s) — %s (dvv, set `%s`)\n", t.Name, t.Name, t.Title, set.Name)
		}
	}
	b.WriteString("\n")
	writeSets(&b)
	for i := range Tools {
		writeTool(&b, &Tools[i])
	}
	for _, set := range Sets {
		for i := range set.Tools {
			writeTool(&b, &set.Tools[i])
		}
	}
	writeMeasured(&b)
	writeOutputSchemas(&b)
	b.WriteString("## The four codes of the loop\n\n")
	for _, c := range []wire.Code{wire.LimbGone, wire.GeometryChanged, wire.ScreenChanged, wire.LeaseRevoked} {
		i := c.Info()
		fmt.Fprintf(&b, "- **%s** — %s Next: %s\n", c, i.Meaning, toolNames(i.Next))
	}
	b.WriteString("\nEvery other code, its meaning and its next move: [protocol.md](protocol.md).\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func writeTool(b *strings.Builder, t *Tool) {
	fmt.Fprintf(b, "### %s\n\n", t.Name)
	if t.Set == "" {
		b.WriteString("**reference** — always served.\n\n")
	} else {
		fmt.Fprintf(b, "**dvv**, set `%s` — served with `--tools %s` or `--tools all`.\n\n", t.Set, t.Set)
	}
	fmt.Fprintf(b, "%s\n\n", t.Doc)
	if len(t.Args) == 0 {
		b.WriteString("No arguments.\n\n")
	} else {
		b.WriteString("| argument | type | required | values | meaning |\n| --- | --- | --- | --- | --- |\n")
		for i := range t.Args {
			writeArgRow(b, "", &t.Args[i])
		}
		b.WriteString("\n")
	}
	// The same list dvvd holds its answers to (pkg/wire's op table).
	raises := t.Raises()
	codes := make([]string, len(raises))
	for i, c := range raises {
		codes[i] = "`" + string(c) + "`"
	}
	fmt.Fprintf(b, "Can answer: %s.\n\n", strings.Join(codes, ", "))
	// The kind binding dvvd enforces before the op runs (OpSpec.Kind).
	if s := t.Spec(); s.Kind != "" {
		fmt.Fprintf(b, "Limbs: %s only (%s); any other limb answers `%s`.\n\n", s.Kind,
			strings.Join(wire.ProtocolsOfKind(s.Kind), ", "), wire.WrongProtocol)
	}
	if t.Shell != "" {
		fmt.Fprintf(b, "Shell: `%s`\n\n", t.Shell)
	}
}

func writeArgRow(b *strings.Builder, prefix string, a *Arg) {
	typ := a.Type
	if a.Type == TArray {
		typ = "array of " + a.Items + "s"
	}
	req := ""
	if a.Required {
		req = "yes"
	}
	fmt.Fprintf(b, "| `%s%s` | %s | %s | %s | %s |\n", prefix, a.Name, typ, req, strings.Join(a.Enum, ", "), escapeCell(a.Doc))
	for i := range a.Props {
		writeArgRow(b, prefix+a.Name+".", &a.Props[i])
	}
}

func escapeCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// writeOutputSchemas explains what the tools' output schemas leave out and
// prints the observation's full schema, which they point to.
func writeOutputSchemas(b *strings.Builder) {
	b.WriteString("## Output schemas\n\n")
	b.WriteString("Each tool's `outputSchema` (in `tools/list`) describes that tool's `structuredContent` only, read off its op's " +
		"answer fields in pkg/wire's op table: `result` (the op on success, `\"error\"` on failure), the op's answer fields, " +
		"`error` (on failure), `observation` (on failure, and on success where the op answers it) and `bridgeNote`. Unknown top-level fields are refused (`additionalProperties: false`). " +
		"To keep `tools/list` small (every byte of it is paid on every turn), an answer object is described by its top-level " +
		"fields and their types, deeper objects as `object`, and the observation, which most tools carry, by a pointer to its " +
		"full schema below. The meaning of each field: [protocol.md](protocol.md) (Concepts and the op table).\n\n")
	b.WriteString("### observation\n\n")
	fmt.Fprintf(b, "`%s`: everything cheap to know about one limb (`dvv_status` returns it; most answers and errors carry it). "+
		"Its fields, generated from `wire.Observation` (`*` stands for any key of a map):\n\n", wire.ObservationSchema)
	b.WriteString("| field | type |\n| --- | --- |\n")
	writeSchemaRows(b, "", ObservationSchema())
	b.WriteString("\n")
}

// writeSchemaRows writes one table row per property of an object schema,
// nested ones under dotted names.
func writeSchemaRows(b *strings.Builder, prefix string, s map[string]any) {
	props, _ := s["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p, _ := props[n].(map[string]any)
		fmt.Fprintf(b, "| `%s%s` | %s |\n", prefix, n, schemaType(p))
		writeSchemaRows(b, prefix+n+".", p)
		if elem, ok := p["additionalProperties"].(map[string]any); ok {
			writeSchemaRows(b, prefix+n+".*.", elem)
		}
	}
}

// schemaType is a schema's type in words: "integer", "array of string",
// "object or null".
func schemaType(s map[string]any) string {
	var t string
	switch v := s["type"].(type) {
	case string:
		t = v
	case []string:
		t = strings.Join(v, " or ")
	default:
		return "any"
	}
	if items, ok := s["items"].(map[string]any); ok {
		t = strings.Replace(t, "array", "array of "+schemaType(items), 1)
	}
	return t
}

func setList() string {
	names := make([]string, len(Sets))
	for i, s := range Sets {
		names[i] = "`" + s.Name + "`"
	}
	return strings.Join(names, ", ")
}

// writeSets lists the tool sets, their tools and what each adds to
// tools/list at most (TestToolSetBudgets holds the bounds).
func writeSets(b *strings.Builder) {
	b.WriteString("## Tool sets\n\n")
	fmt.Fprintf(b, "Every tool's schema is paid in context on every turn, so dvv's own tools come in sets an agent turns on as it needs them "+
		"(`dvvmcp --tools text,image`, `DVV_MCP_TOOLS=all`). Without `--tools`, `tools/list` is the reference's %d tools, byte for byte, "+
		"at most %d KiB. A tool of a set that is not turned on is an unknown tool (-32602), and the error names the `--tools` that serves it; "+
		"an unknown set name stops `dvvmcp` at start with the list of sets. Names are `dvv_` plus the op; input schemas are closed and "+
		"derived from the op's types as the reference's are; each has an `outputSchema`, and each description ends with what an answer costs.\n\n",
		ToolCount, 40)
	b.WriteString("| set | for | tools | adds to `tools/list`, at most |\n| --- | --- | --- | --- |\n")
	for _, s := range Sets {
		names := make([]string, len(s.Tools))
		for i, t := range s.Tools {
			names[i] = "`" + t.Name + "`"
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %d KiB |\n", s.Name, s.Doc, strings.Join(names, ", "), s.Budget>>10)
	}
	fmt.Fprintf(b, "| `all` | every set | | the whole list at most %d KiB |\n\n", 72)
	b.WriteString("**Fenced coordinates.** Every coordinate a set's tool returns carries the generation it was read on (`dvv_find`'s matches, " +
		"`dvv_expect`'s box); pass it to `dvv_click`. `dvv_click_text` reads the screen on every call and clicks with the generation of " +
		"that read, as `dvv click --text` does: dvvd refuses the click (`GEOMETRY_CHANGED`) if the geometry changed in between, text " +
		"not on the screen is `NOT_FOUND` and text on it more than once `BAD_REQUEST` with the candidates; nothing is clicked then.\n\n")
}

//go:embed tools_measured.md
var measured string

// writeMeasured prints what test/bench's TestToolAnswers measured.
func writeMeasured(b *strings.Builder) {
	b.WriteString("## Measured\n\n")
	b.WriteString("What each tool's answer costs an agent, measured from a real loop: the `dvvmcp` binary with `--tools all`, driven by " +
		"the Go MCP SDK's client over stdio, against a 1920x1080 Xvnc desktop (two xterms full of text and a dialog with the buttons " +
		"Keep and Discard), dvvd reading text with its Tesseract worker. Bytes are the `tools/call` result as JSON (text blocks, " +
		"`structuredContent`, images as base64); the time is the median of 15 calls (5 rounds for the tools that open and close limbs and groups, each timed on a second, " +
		"640x480 desktop), client to client, on a shared 2-core machine; the terminal tools act on an SSH limb of a local sshd. " +
		"Claude KVM's figures are those it publishes for its nearest tool, not measured here. Regenerate with " +
		"`DVV_BENCH_TOOLS_OUT=$PWD/pkg/mcp/tools_measured.md go test -tags bench -count=1 -v -run 'TestToolAnswers$' ./test/bench`, then `make docs`.\n\n")
	b.WriteString(measured)
	b.WriteString("\nOne run. Times move between runs on the shared machine; bytes do not. `dvv_click`, `dvv_click_text` and `dvv_key` " +
		"answer after watching the screen for up to 300 ms (`verification`), which is most of their time; `dvv_type` and `dvv_term_send` " +
		"answer as soon as the text shows. " +
		"`dvv_find` on a screen that did not change since its last recognition answers from it (the answer says `cached: true`).\n\n")
}
