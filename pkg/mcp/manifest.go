// Package mcp is dvvmcp: the MCP face of dvv. By default it exposes exactly
// the 25 tools of the product's tool reference; named tool sets (sets.go)
// add dvv's own when asked for. It forwards each call to dvvd's control
// socket through pkg/client and holds no state of its own beyond its one
// attachment.
package mcp

import (
	"slices"

	"github.com/dvvhq/dvv/pkg/wire"
)

// ToolCount is the number of tools the bridge exposes: the manifest's.
// Which tools those are is fixed by the product's tool reference, its
// transcription in testdata/reference_tools.json (TestToolCount).
var ToolCount = len(Tools)

// JSON types an argument can have.
const (
	TString  = "string"
	TNumber  = "number"
	TBoolean = "boolean"
	TArray   = "array"
	TObject  = "object"
)

// Arg is one tool argument as the tool reference states it, plus the
// bridge's own bounds (Whole, MaxBytes), which are checked before anything
// reaches dvvd but do not change the schema's types.
type Arg struct {
	Name     string
	Type     string
	Enum     []string
	Required bool
	Items    string // element type of an array
	Props    []Arg  // known fields of an object (region); nil = free-form object
	Whole    bool   // a number that must be a whole number (pixels, counts, ms)
	MaxBytes int    // longest accepted string, in bytes (0 = DefaultMaxString)
	Doc      string
}

// Tool is one tool of the manifest.
type Tool struct {
	Name  string
	Op    string // the socket op it forwards to
	Title string
	Doc   string // what it does, what it proves and what it only dispatches
	Shell string // the equivalent dvv command line
	Idem  bool   // repeating it has no further effect
	Args  []Arg
	// Set is the tool set that serves it; "" for the reference's tools.
	Set string
	// Also is a second op whose fields some arguments are (dvv_click_text
	// reads with find, then clicks): those go to it, the rest to Op.
	Also string
	// Local is set on a tool the bridge serves itself, over its attachment,
	// rather than by forwarding one op (local.go); Op is then "".
	Local *Local
}

// Bounds the bridge applies to arguments before forwarding them.
const (
	DefaultMaxString = 64 << 10 // identifiers, paths, commands, key chords
	MaxText          = 1 << 20  // text typed, sent to a terminal or set on a clipboard
	MaxContentBase64 = 48 << 20 // a files put inline; keeps the socket line under wire.MaxLine
	// MaxInlineGet is the largest file dvv_files get returns in its reply
	// (without to): a reply is read whole into the agent's context, and a
	// bigger file is saved to a local path with to instead.
	MaxInlineGet     = 256 << 10
	MaxArrayItems    = 1024     // hostIds, addresses, modifiers
	MaxArgumentBytes = 60 << 20 // the whole arguments object
	// MaxFrameBytes is the longest JSON-RPC frame the stdio transport reads.
	// It is above MaxArgumentBytes so an oversized argument is answered with a
	// TOO_LARGE tool error rather than ending the session.
	MaxFrameBytes = 80 << 20
)

// arg is one argument by its op's JSON name, with its doc; its type, and
// whether it is required, come from the op's Args and spec (fromSpec).
func arg(name, doc string) Arg         { return Arg{Name: name, Doc: doc} }
func enum(a Arg, values ...string) Arg { a.Enum = values; return a }
func maxBytes(a Arg, n int) Arg        { a.MaxBytes = n; return a }

// field is an argument whose doc is its field's help, the doc comment its
// op's Args give it (fromSpec fills it in), so the CLI's flag and the tool
// say it once.
func field(name string) Arg { return Arg{Name: name} }

// trio is the selector every limb tool takes: one limb by id, or one member
// of a group.
func trio() []Arg {
	return []Arg{
		arg("limbId", "The limb, from dvv_limbs or dvv_open; or give groupId and member."),
		arg("groupId", "A group from dvv_group_open (with member)."),
		arg("member", "Index within groupId (dvv_group_list)."),
	}
}

func withTrio(args ...Arg) []Arg { return append(trio(), args...) }

var protocols = wire.ProtocolNames()

// region is dvv_screen's rectangle; its four fields are all needed to
// name a rectangle.
var region = Arg{Name: "region", Doc: "The rectangle to read, in native framebuffer pixels. Used with form \"region\" only.",
	Props: []Arg{arg("x", "Left edge."), arg("y", "Top edge."), arg("w", "Width."), arg("h", "Height.")}}

// Tools is the manifest, in the tool reference's order. Which arguments
// are required, and the closed sets of values (an op's variants, a field's
// oneOf), are read from pkg/wire's op table (fromSpec), not spelt here; the
// protocol enums read the protocol registry.
var Tools = fromSpec([]Tool{
	{Name: "dvv_hosts", Op: wire.OpHosts, Title: "Saved and discovered machines", Doc: docHosts,
		Shell: "dvv hosts", Idem: true,
		Args: []Arg{field("discovered")}},
	{Name: "dvv_limbs", Op: wire.OpLimbs, Title: "Limbs this attachment can see", Doc: docLimbs,
		Shell: "dvv limbs", Idem: true},
	{Name: "dvv_open", Op: wire.OpOpen, Title: "Open a limb", Doc: docOpen,
		Shell: "dvv open <name or hostId> --perceive",
		Args: []Arg{
			field("hostId"),
			field("address"),
			arg("port", "Port; defaults to "+wire.DefaultPorts()+"."),
			enum(field("protocol"), protocols...),
			field("slot"),
			field("perceive"),
		}},
	{Name: "dvv_close", Op: wire.OpClose, Title: "Close a limb", Doc: docClose,
		Shell: "dvv close <limbId>", Idem: true,
		Args: []Arg{arg("limbId", "The limb to close.")}},
	{Name: "dvv_reconnect", Op: wire.OpReconnect, Title: "Reconnect a limb", Doc: docReconnect,
		Shell: "dvv reconnect <limbId>",
		Args:  withTrio(field("timeoutMs"))},
	{Name: "dvv_status", Op: wire.OpStatus, Title: "Observation of one limb", Doc: docStatus,
		Shell: "dvv status <limbId>", Idem: true,
		Args: trio()},
	{Name: "dvv_control", Op: wire.OpControl, Title: "The control lease", Doc: docControl,
		Shell: "dvv control acquire <limbId>",
		Args: withTrio(
			field("action"),
			field("reason"),
			field("waitMs"),
		)},
	{Name: "dvv_click", Op: wire.OpClick, Title: "Pointer event", Doc: docClick,
		Shell: "dvv click <limbId> <x> <y> [--action double]",
		Args: withTrio(
			field("generation"),
			arg("action", "What the pointer does."),
			field("x"),
			field("y"),
			field("toX"),
			field("toY"),
			field("button"),
			field("direction"),
			field("clicks"),
			arg("modifiers", "Keys held for the duration, e.g. [\"ctrl\",\"shift\"]."),
		)},
	{Name: "dvv_type", Op: wire.OpType, Title: "Type text", Doc: docType,
		Shell: "dvv type <limbId> \"text to type\"",
		Args: withTrio(
			maxBytes(field("text"), MaxText),
			field("wpm"),
		)},
	{Name: "dvv_key", Op: wire.OpKey, Title: "Key or chord", Doc: docKey,
		Shell: "dvv key <limbId> super+r",
		Args:  withTrio(field("keys"))},
	{Name: "dvv_screen", Op: wire.OpScreen, Title: "Read the screen", Doc: docScreen,
		Shell: "dvv screen <limbId> --scale 0.5 --out ./dvv-screen.png",
		Args: withTrio(
			field("form"),
			region,
			field("scale"),
		)},
	{Name: "dvv_wait", Op: wire.OpWait, Title: "Wait for a condition", Doc: docWait,
		Shell: "dvv wait <limbId> --until connected",
		Args: withTrio(
			field("until"),
			maxBytes(field("text"), MaxText),
			field("quietMs"),
			field("timeoutMs"),
		)},
	{Name: "dvv_clipboard", Op: wire.OpClipboard, Title: "Remote clipboard", Doc: docClipboard,

		Args: withTrio(
			field("action"),
			maxBytes(field("text"), MaxText),
		)},
	{Name: "dvv_run", Op: wire.OpRun, Title: "Run a command", Doc: docRun,
		Shell: "dvv run <limbId> --timeoutMs 5000 \"command\"",
		Args: withTrio(
			field("command"),
			field("cwd"),
			field("timeoutMs"),
			field("maxOutputBytes"),
		)},
	{Name: "dvv_term_read", Op: wire.OpTermRead, Title: "Terminal output since a cursor", Doc: docTermRead,

		Args: withTrio(field("since"))},
	{Name: "dvv_term_send", Op: wire.OpTermSend, Title: "Raw input to a terminal", Doc: docTermSend,

		Args: withTrio(
			maxBytes(field("text"), MaxText),
			maxBytes(field("bytesHex"), 2*MaxText),
		)},
	{Name: "dvv_files", Op: wire.OpFiles, Title: "Files over SFTP", Doc: docFiles,

		Args: withTrio(
			field("action"),
			field("path"),
			field("to"),
			field("from"),
			maxBytes(field("contentBase64"), MaxContentBase64),
			field("mode"),
			field("recursive"),
		)},
	{Name: "dvv_transfer", Op: wire.OpTransfer, Title: "Transfers in flight", Doc: docTransfer,
		Idem: true,
		Args: withTrio(
			field("action"),
			field("transferId"),
		)},
	{Name: "dvv_group_open", Op: wire.OpGroupOpen, Title: "Open a group of limbs", Doc: docGroupOpen,

		Args: []Arg{
			field("hostIds"),
			field("addresses"),
			enum(field("protocol"), protocols...),
			field("perceive"),
		}},
	{Name: "dvv_group_list", Op: wire.OpGroupList, Title: "Groups and their members", Doc: docGroupList,
		Idem: true,
		Args: []Arg{arg("groupId", "One group to list members of; absent lists every group.")}},
	{Name: "dvv_group_grow", Op: wire.OpGroupGrow, Title: "Add members to a group", Doc: docGroupGrow,

		Args: []Arg{
			arg("groupId", "The group to grow."),
			field("hostIds"),
			field("addresses"),
			arg("protocol", "Needed with addresses: "+wire.ProtocolChoice()+"."),
			field("perceive"),
		}},
	{Name: "dvv_group_shrink", Op: wire.OpGroupShrnk, Title: "Close the newest members", Doc: docGroupShrink,

		Args: []Arg{
			arg("groupId", "The group to shrink."),
			field("n"),
		}},
	{Name: "dvv_group_close", Op: wire.OpGroupClose, Title: "Close a group", Doc: docGroupClose,
		Idem: true,
		Args: []Arg{arg("groupId", "The group to close.")}},
	{Name: "dvv_group_run", Op: wire.OpGroupRun, Title: "One action on every member", Doc: docGroupRun,

		Args: []Arg{
			arg("groupId", "The group."),
			field("action"),
			field("arguments"),
		}},
	{Name: "dvv_signals", Op: wire.OpSignals, Title: "Negotiated signals", Doc: docSignals,
		Shell: "dvv signals <limbId>", Idem: true,
		Args: trio()},
})

var toolIndex = func() map[string]*Tool {
	m := make(map[string]*Tool, len(Tools))
	for i := range Tools {
		m[Tools[i].Name] = &Tools[i]
	}
	return m
}()

// Spec is the op spec of the tool's socket op (pkg/wire's table): what it
// reads, whether a retry is safe, which codes it answers with.
func (t *Tool) Spec() *wire.OpSpec {
	s, ok := wire.Spec(t.Op)
	if !ok {
		panic("mcp: tool " + t.Name + " forwards to op " + t.Op + ", which pkg/wire does not specify")
	}
	return s
}

// ReadOnly reports whether the tool changes nothing on the remote machine.
func (t *Tool) ReadOnly() bool {
	if t.Local != nil {
		return t.Local.ReadOnly
	}
	return t.Spec().ReadOnly
}

// Raises lists the codes the tool can answer with: its op's, and
// DAEMON_UNAVAILABLE when the bridge cannot reach dvvd.
func (t *Tool) Raises() []wire.Code {
	if t.Local != nil {
		return append(slices.Clone(t.Local.Raises), wire.DaemonUnavailable)
	}
	r := without(slices.Clone(t.Spec().AllRaises()), t.frozen().codes)
	if t.Also != "" {
		also, _ := wire.Spec(t.Also)
		for _, c := range append(also.AllRaises(), wire.NotFound, wire.BadRequest) {
			if !slices.Contains(r, c) {
				r = append(r, c)
			}
		}
	}
	return append(r, wire.DaemonUnavailable)
}

// Lookup returns the tool with the given name.
func Lookup(name string) (*Tool, bool) { t, ok := toolIndex[name]; return t, ok }

// arg returns the tool's argument with the given name.
func (t *Tool) arg(name string) (*Arg, bool) {
	for i := range t.Args {
		if t.Args[i].Name == name {
			return &t.Args[i], true
		}
	}
	return nil, false
}
