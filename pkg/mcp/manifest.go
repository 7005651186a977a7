// Package mcp is dvvmcp: the MCP face of dvv. It exposes exactly the 25
// tools of the product's tool reference and forwards each call to dvvd's
// control socket through pkg/client. It holds no state of its own beyond its
// one attachment.
package mcp

import "github.com/dvvhq/dvv/pkg/wire"

// ToolCount is the number of tools the bridge exposes. The tool reference
// fixes it; a change here is a change of the product's surface.
const ToolCount = 25

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
}

// Bounds the bridge applies to arguments before forwarding them.
const (
	DefaultMaxString = 64 << 10 // identifiers, paths, commands, key chords
	MaxText          = 1 << 20  // text typed, sent to a terminal or set on a clipboard
	MaxContentBase64 = 48 << 20 // a files put inline; keeps the socket line under wire.MaxLine
	MaxArrayItems    = 1024     // hostIds, addresses, modifiers
	MaxArgumentBytes = 60 << 20 // the whole arguments object
	// MaxFrameBytes is the longest JSON-RPC frame the stdio transport reads.
	// It is above MaxArgumentBytes so an oversized argument is answered with a
	// TOO_LARGE tool error rather than ending the session.
	MaxFrameBytes = 80 << 20
)

func str(name, doc string) Arg         { return Arg{Name: name, Type: TString, Doc: doc} }
func num(name, doc string) Arg         { return Arg{Name: name, Type: TNumber, Whole: true, Doc: doc} }
func boolean(name, doc string) Arg     { return Arg{Name: name, Type: TBoolean, Doc: doc} }
func strs(name, doc string) Arg        { return Arg{Name: name, Type: TArray, Items: TString, Doc: doc} }
func enum(a Arg, values ...string) Arg { a.Enum = values; return a }
func required(a Arg) Arg               { a.Required = true; return a }
func maxBytes(a Arg, n int) Arg        { a.MaxBytes = n; return a }

// trio is the selector every limb tool takes: one limb by id, or one member
// of a group.
func trio() []Arg {
	return []Arg{
		str("limbId", "The limb, from dvv_limbs or dvv_open; or give groupId and member."),
		str("groupId", "A group from dvv_group_open (with member)."),
		num("member", "Index within groupId (dvv_group_list)."),
	}
}

func withTrio(args ...Arg) []Arg { return append(trio(), args...) }

var protocols = wire.ProtocolNames()

// region is dvv_screen's rectangle; its four fields are all needed to
// name a rectangle.
var region = Arg{Name: "region", Type: TObject, Doc: "The rectangle to read, in native framebuffer pixels. Used with form \"region\" only.",
	Props: []Arg{
		required(num("x", "Left edge.")), required(num("y", "Top edge.")),
		required(num("w", "Width.")), required(num("h", "Height.")),
	}}

// Tools is the manifest, in the tool reference's order. Which arguments
// are required, and the closed sets of values (an op's variants, a field's
// oneOf), are read from pkg/wire's op table (fromSpec), not spelt here; the
// protocol enums read the protocol registry.
var Tools = fromSpec([]Tool{
	{Name: "dvv_hosts", Op: wire.OpHosts, Title: "Saved and discovered machines", Doc: docHosts,
		Shell: "dvv hosts", Idem: true,
		Args: []Arg{boolean("discovered", "true to list what discovery (mDNS) has seen as well.")}},
	{Name: "dvv_limbs", Op: wire.OpLimbs, Title: "Limbs this attachment can see", Doc: docLimbs,
		Shell: "dvv limbs", Idem: true},
	{Name: "dvv_open", Op: wire.OpOpen, Title: "Open a limb", Doc: docOpen,
		Shell: "dvv open <name or hostId> --perceive",
		Args: []Arg{
			str("hostId", "A saved machine, from dvv_hosts."),
			str("address", "Hostname or IP of a machine that is not saved."),
			num("port", "Port; defaults to "+wire.DefaultPorts()+"."),
			enum(str("protocol", "Needed with address; refused beside hostId."), protocols...),
			num("slot", "0 attaches to the live session; above 0 opens a fresh one (rdp, ssh)."),
			boolean("perceive", "Keep a framebuffer mirror so dvv_screen has pixels to read."),
		}},
	{Name: "dvv_close", Op: wire.OpClose, Title: "Close a limb", Doc: docClose,
		Shell: "dvv close <limbId>", Idem: true,
		Args: []Arg{str("limbId", "The limb to close.")}},
	{Name: "dvv_reconnect", Op: wire.OpReconnect, Title: "Reconnect a limb", Doc: docReconnect,
		Shell: "dvv reconnect <limbId>",
		Args:  withTrio(num("timeoutMs", "How long to wait for the limb to come back; default 20000."))},
	{Name: "dvv_status", Op: wire.OpStatus, Title: "Observation of one limb", Doc: docStatus,
		Shell: "dvv status <limbId>", Idem: true,
		Args: trio()},
	{Name: "dvv_control", Op: wire.OpControl, Title: "The control lease", Doc: docControl,
		Shell: "dvv control acquire <limbId>",
		Args: withTrio(
			str("action", "acquire, release, status, yield (release with a recorded reason) or yield_status (read only)."),
			str("reason", "Shown to the person on acquire; recorded on yield."),
			num("waitMs", "acquire only: how long to wait for a lease someone else holds; 0 fails at once."),
		)},
	{Name: "dvv_click", Op: wire.OpClick, Title: "Pointer event", Doc: docClick,
		Shell: "dvv click <limbId> <x> <y> [--action double]",
		Args: withTrio(
			num("generation", "geometry.generation of the observation the coordinates were computed against. Without it the click is refused (UNFENCED)."),
			str("action", "What the pointer does."),
			num("x", "Framebuffer pixels from the left."),
			num("y", "Framebuffer pixels from the top."),
			num("toX", "drag only: where the button is released (x)."),
			num("toY", "drag only: where the button is released (y)."),
			str("button", "drag only: the button held."),
			str("direction", "scroll only, and needed there."),
			num("clicks", "scroll only: wheel clicks; default 1."),
			strs("modifiers", "Keys held for the duration, e.g. [\"ctrl\",\"shift\"]."),
		)},
	{Name: "dvv_type", Op: wire.OpType, Title: "Type text", Doc: docType,
		Shell: "dvv type <limbId> \"text to type\"",
		Args: withTrio(
			maxBytes(str("text", "The text, typed into whatever has focus."), MaxText),
			num("wpm", "Throttle in words per minute; default is as fast as the remote accepts."),
		)},
	{Name: "dvv_key", Op: wire.OpKey, Title: "Key or chord", Doc: docKey,
		Shell: "dvv key <limbId> super+r",
		Args:  withTrio(str("keys", "One key name, or a chord joined with +: Enter, Escape, Tab, ctrl+c, alt+F4, ctrl+alt+Delete, super+r."))},
	{Name: "dvv_screen", Op: wire.OpScreen, Title: "Read the screen", Doc: docScreen,
		Shell: "dvv screen <limbId> --scale 0.5 --out ./dvv-screen.png",
		Args: withTrio(
			str("form", "full (default), region, or damage-crop (only what changed since this attachment's last read)."),
			region,
			Arg{Name: "scale", Type: TNumber, Doc: "Whole frame only: scale factor, e.g. 0.5. Refused beside a region."},
		)},
	{Name: "dvv_wait", Op: wire.OpWait, Title: "Wait for a condition", Doc: docWait,
		Shell: "dvv wait <limbId> --until connected",
		Args: withTrio(
			str("until", "The condition."),
			maxBytes(str("text", "Needed for until text and text-gone: the text to look for."), MaxText),
			num("quietMs", "How long the screen must stay still to count as stable or idle; default 750."),
			num("timeoutMs", "Deadline; default 8000, clamped to 25000."),
		)},
	{Name: "dvv_clipboard", Op: wire.OpClipboard, Title: "Remote clipboard", Doc: docClipboard,

		Args: withTrio(
			str("action", "get reads the remote clipboard; set writes text to it."),
			maxBytes(str("text", "set only: the text to put on the clipboard."), MaxText),
		)},
	{Name: "dvv_run", Op: wire.OpRun, Title: "Run a command", Doc: docRun,
		Shell: "dvv run <limbId> --timeoutMs 5000 \"command\"",
		Args: withTrio(
			str("command", "One command line, run by the remote user's shell."),
			str("cwd", "Working directory; the home directory when absent."),
			num("timeoutMs", "Deadline in milliseconds; there is no default."),
			num("maxOutputBytes", "Cap on each of stdout and stderr; above it output is cut and the answer says how much was dropped."),
		)},
	{Name: "dvv_term_read", Op: wire.OpTermRead, Title: "Terminal output since a cursor", Doc: docTermRead,

		Args: withTrio(str("since", "A cursor from an earlier answer; absent means from the start."))},
	{Name: "dvv_term_send", Op: wire.OpTermSend, Title: "Raw input to a terminal", Doc: docTermSend,

		Args: withTrio(
			maxBytes(str("text", "Sent as UTF-8."), MaxText),
			maxBytes(str("bytesHex", "Bytes as hex, two digits each, no separators; 03 is Ctrl+C."), 2*MaxText),
		)},
	{Name: "dvv_files", Op: wire.OpFiles, Title: "Files over SFTP", Doc: docFiles,

		Args: withTrio(
			str("action", "What to do."),
			str("path", "The remote path; ~ and ~/x resolve against the remote home. For rename, the existing name."),
			str("to", "rename: the new remote path. get: an absolute local path to save to (else the content comes inline)."),
			str("from", "put only: an absolute local path to upload."),
			maxBytes(str("contentBase64", "put only: the bytes to write, base64."), MaxContentBase64),
			num("mode", "put only: permission bits, e.g. 420 for 0644."),
			boolean("recursive", "remove only: remove a directory and what it holds."),
		)},
	{Name: "dvv_transfer", Op: wire.OpTransfer, Title: "Transfers in flight", Doc: docTransfer,
		Idem: true,
		Args: withTrio(
			str("action", "status or cancel."),
			str("transferId", "cancel: the transfer to stop, as status listed it."),
		)},
	{Name: "dvv_group_open", Op: wire.OpGroupOpen, Title: "Open a group of limbs", Doc: docGroupOpen,

		Args: []Arg{
			strs("hostIds", "Saved machines, from dvv_hosts."),
			strs("addresses", "Endpoints of machines that are not saved (host or host:port)."),
			enum(str("protocol", "Needed with addresses."), protocols...),
			boolean("perceive", "Keep a framebuffer mirror for every member."),
		}},
	{Name: "dvv_group_list", Op: wire.OpGroupList, Title: "Groups and their members", Doc: docGroupList,
		Idem: true,
		Args: []Arg{str("groupId", "One group to list members of; absent lists every group.")}},
	{Name: "dvv_group_grow", Op: wire.OpGroupGrow, Title: "Add members to a group", Doc: docGroupGrow,

		Args: []Arg{
			str("groupId", "The group to grow."),
			strs("hostIds", "Saved machines to add."),
			strs("addresses", "Endpoints to add."),
			str("protocol", "Needed with addresses: "+wire.ProtocolChoice()+"."),
			boolean("perceive", "Keep a framebuffer mirror for the new members."),
		}},
	{Name: "dvv_group_shrink", Op: wire.OpGroupShrnk, Title: "Close the newest members", Doc: docGroupShrink,

		Args: []Arg{
			str("groupId", "The group to shrink."),
			num("n", "How many of the most recently added members to close."),
		}},
	{Name: "dvv_group_close", Op: wire.OpGroupClose, Title: "Close a group", Doc: docGroupClose,
		Idem: true,
		Args: []Arg{str("groupId", "The group to close.")}},
	{Name: "dvv_group_run", Op: wire.OpGroupRun, Title: "One action on every member", Doc: docGroupRun,

		Args: []Arg{
			str("groupId", "The group."),
			str("action", "The single-limb tool to run on every member, without its dvv_ prefix."),
			{Name: "arguments", Type: TObject, Doc: "That tool's arguments, without limbId, groupId and member."},
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
func (t *Tool) ReadOnly() bool { return t.Spec().ReadOnly }

// Raises lists the codes the tool can answer with: its op's, and
// DAEMON_UNAVAILABLE when the bridge cannot reach dvvd.
func (t *Tool) Raises() []wire.Code { return append(t.Spec().AllRaises(), wire.DaemonUnavailable) }

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
