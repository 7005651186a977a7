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
		Args: []Arg{arg("discovered", "true to list what discovery (mDNS) has seen as well.")}},
	{Name: "dvv_limbs", Op: wire.OpLimbs, Title: "Limbs this attachment can see", Doc: docLimbs,
		Shell: "dvv limbs", Idem: true},
	{Name: "dvv_open", Op: wire.OpOpen, Title: "Open a limb", Doc: docOpen,
		Shell: "dvv open <name or hostId> --perceive",
		Args: []Arg{
			arg("hostId", "A saved machine, from dvv_hosts."),
			arg("address", "Hostname or IP of a machine that is not saved."),
			arg("port", "Port; defaults to "+wire.DefaultPorts()+"."),
			enum(arg("protocol", "Needed with address; refused beside hostId."), protocols...),
			arg("slot", "0 attaches to the live session; above 0 opens a fresh one (rdp, ssh)."),
			arg("perceive", "Keep a framebuffer mirror so dvv_screen has pixels to read."),
		}},
	{Name: "dvv_close", Op: wire.OpClose, Title: "Close a limb", Doc: docClose,
		Shell: "dvv close <limbId>", Idem: true,
		Args: []Arg{arg("limbId", "The limb to close.")}},
	{Name: "dvv_reconnect", Op: wire.OpReconnect, Title: "Reconnect a limb", Doc: docReconnect,
		Shell: "dvv reconnect <limbId>",
		Args:  withTrio(arg("timeoutMs", "How long to wait for the limb to come back; default 20000."))},
	{Name: "dvv_status", Op: wire.OpStatus, Title: "Observation of one limb", Doc: docStatus,
		Shell: "dvv status <limbId>", Idem: true,
		Args: trio()},
	{Name: "dvv_control", Op: wire.OpControl, Title: "The control lease", Doc: docControl,
		Shell: "dvv control acquire <limbId>",
		Args: withTrio(
			arg("action", "acquire, release, status, yield (release with a recorded reason) or yield_status (read only)."),
			arg("reason", "Shown to the person on acquire; recorded on yield."),
			arg("waitMs", "acquire only: how long to wait for a lease someone else holds; 0 fails at once."),
		)},
	{Name: "dvv_click", Op: wire.OpClick, Title: "Pointer event", Doc: docClick,
		Shell: "dvv click <limbId> <x> <y> [--action double]",
		Args: withTrio(
			arg("generation", "geometry.generation of the observation the coordinates were computed against. Without it the click is refused (UNFENCED)."),
			arg("action", "What the pointer does."),
			arg("x", "Framebuffer pixels from the left."),
			arg("y", "Framebuffer pixels from the top."),
			arg("toX", "drag only: where the button is released (x)."),
			arg("toY", "drag only: where the button is released (y)."),
			arg("button", "drag only: the button held."),
			arg("direction", "scroll only, and needed there."),
			arg("clicks", "scroll only: wheel clicks; default 1."),
			arg("modifiers", "Keys held for the duration, e.g. [\"ctrl\",\"shift\"]."),
		)},
	{Name: "dvv_type", Op: wire.OpType, Title: "Type text", Doc: docType,
		Shell: "dvv type <limbId> \"text to type\"",
		Args: withTrio(
			maxBytes(arg("text", "The text, typed into whatever has focus."), MaxText),
			arg("wpm", "Throttle in words per minute; default is as fast as the remote accepts."),
		)},
	{Name: "dvv_key", Op: wire.OpKey, Title: "Key or chord", Doc: docKey,
		Shell: "dvv key <limbId> super+r",
		Args:  withTrio(arg("keys", "One key name, or a chord joined with +: Enter, Escape, Tab, ctrl+c, alt+F4, ctrl+alt+Delete, super+r."))},
	{Name: "dvv_screen", Op: wire.OpScreen, Title: "Read the screen", Doc: docScreen,
		Shell: "dvv screen <limbId> --scale 0.5 --out ./dvv-screen.png",
		Args: withTrio(
			arg("form", "full (default), region, or damage-crop (only what changed since this attachment's last read)."),
			region,
			arg("scale", "Whole frame only: scale factor, e.g. 0.5. Refused beside a region."),
		)},
	{Name: "dvv_wait", Op: wire.OpWait, Title: "Wait for a condition", Doc: docWait,
		Shell: "dvv wait <limbId> --until connected",
		Args: withTrio(
			arg("until", "The condition."),
			maxBytes(arg("text", "Needed for until text and text-gone: the text to look for."), MaxText),
			arg("quietMs", "How long the screen must stay still to count as stable or idle; default 750."),
			arg("timeoutMs", "Deadline; default 8000, clamped to 25000."),
		)},
	{Name: "dvv_clipboard", Op: wire.OpClipboard, Title: "Remote clipboard", Doc: docClipboard,

		Args: withTrio(
			arg("action", "get reads the remote clipboard; set writes text to it."),
			maxBytes(arg("text", "set only: the text to put on the clipboard."), MaxText),
		)},
	{Name: "dvv_run", Op: wire.OpRun, Title: "Run a command", Doc: docRun,
		Shell: "dvv run <limbId> --timeoutMs 5000 \"command\"",
		Args: withTrio(
			arg("command", "One command line, run by the remote user's shell."),
			arg("cwd", "Working directory; the home directory when absent."),
			arg("timeoutMs", "Deadline in milliseconds; there is no default."),
			arg("maxOutputBytes", "Cap on each of stdout and stderr; above it output is cut and the answer says how much was dropped."),
		)},
	{Name: "dvv_term_read", Op: wire.OpTermRead, Title: "Terminal output since a cursor", Doc: docTermRead,

		Args: withTrio(arg("since", "A cursor from an earlier answer; absent means from the start."))},
	{Name: "dvv_term_send", Op: wire.OpTermSend, Title: "Raw input to a terminal", Doc: docTermSend,

		Args: withTrio(
			maxBytes(arg("text", "Sent as UTF-8."), MaxText),
			maxBytes(arg("bytesHex", "Bytes as hex, two digits each, no separators; 03 is Ctrl+C."), 2*MaxText),
		)},
	{Name: "dvv_files", Op: wire.OpFiles, Title: "Files over SFTP", Doc: docFiles,

		Args: withTrio(
			arg("action", "What to do."),
			arg("path", "The remote path; ~ and ~/x resolve against the remote home. For rename, the existing name."),
			arg("to", "rename: the new remote path. get: an absolute local path to save to (else the content comes inline: UTF-8 text as a text block, other bytes as base64, at most 256 KiB)."),
			arg("from", "put only: an absolute local path to upload."),
			maxBytes(arg("contentBase64", "put only: the bytes to write, base64."), MaxContentBase64),
			arg("mode", "put only: permission bits, e.g. 420 for 0644."),
			arg("recursive", "remove only: remove a directory and what it holds."),
		)},
	{Name: "dvv_transfer", Op: wire.OpTransfer, Title: "Transfers in flight", Doc: docTransfer,
		Idem: true,
		Args: withTrio(
			arg("action", "status or cancel."),
			arg("transferId", "cancel: the transfer to stop, as status listed it."),
		)},
	{Name: "dvv_group_open", Op: wire.OpGroupOpen, Title: "Open a group of limbs", Doc: docGroupOpen,

		Args: []Arg{
			arg("hostIds", "Saved machines, from dvv_hosts."),
			arg("addresses", "Endpoints of machines that are not saved (host or host:port)."),
			enum(arg("protocol", "Needed with addresses."), protocols...),
			arg("perceive", "Keep a framebuffer mirror for every member."),
		}},
	{Name: "dvv_group_list", Op: wire.OpGroupList, Title: "Groups and their members", Doc: docGroupList,
		Idem: true,
		Args: []Arg{arg("groupId", "One group to list members of; absent lists every group.")}},
	{Name: "dvv_group_grow", Op: wire.OpGroupGrow, Title: "Add members to a group", Doc: docGroupGrow,

		Args: []Arg{
			arg("groupId", "The group to grow."),
			arg("hostIds", "Saved machines to add."),
			arg("addresses", "Endpoints to add."),
			arg("protocol", "Needed with addresses: "+wire.ProtocolChoice()+"."),
			arg("perceive", "Keep a framebuffer mirror for the new members."),
		}},
	{Name: "dvv_group_shrink", Op: wire.OpGroupShrnk, Title: "Close the newest members", Doc: docGroupShrink,

		Args: []Arg{
			arg("groupId", "The group to shrink."),
			arg("n", "How many of the most recently added members to close."),
		}},
	{Name: "dvv_group_close", Op: wire.OpGroupClose, Title: "Close a group", Doc: docGroupClose,
		Idem: true,
		Args: []Arg{arg("groupId", "The group to close.")}},
	{Name: "dvv_group_run", Op: wire.OpGroupRun, Title: "One action on every member", Doc: docGroupRun,

		Args: []Arg{
			arg("groupId", "The group."),
			arg("action", "The single-limb tool to run on every member, without its dvv_ prefix."),
			arg("arguments", "That tool's arguments, without limbId, groupId and member."),
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
func (t *Tool) Raises() []wire.Code {
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
