package wire

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
)

// OpSpec is what one op is. dvvd's dispatch, policy's capability table, the
// MCP bridge's annotations and retry rule, the generated docs and the tests
// all read this table; nothing else lists the ops.
type OpSpec struct {
	Name string
	// Limb ops address one limb through the selector trio (limbId, or
	// groupId with member); dvvd resolves it before the handler runs and
	// keeps the limb's history.
	Limb bool
	// Kind binds a limb op to one kind of limb (KindDesktop or
	// KindTerminal); "" means any. dvvd refuses a limb of the other kind
	// with WRONG_PROTOCOL before the handler runs, and KindNote says what
	// to use there instead.
	Kind     string
	KindNote string
	// VariantKinds binds single variants to one kind where the op itself
	// takes any limb (wait's until exit: a terminal's shell).
	VariantKinds map[string]string
	// Inline ops answer from memory in microseconds and are served on the
	// connection's reading goroutine even when they carry an id.
	Inline bool
	// NoAttach ops are served before the connection has an attachment.
	NoAttach bool
	// ReadOnly ops change nothing on a remote machine nor in dvvd's saved
	// state; RetrySafe ones may be sent again after a connection dropped
	// mid-call (a read-only op may still not be: it can clear a fence).
	ReadOnly  bool
	RetrySafe bool
	// Dispatches ops send input to the remote machine and answer once it
	// is sent: only a later screen or wait shows its effect. They are the
	// acts: their answers carry a verification and the viewer's overlay
	// shows them.
	Dispatches bool
	// Recorded ops go into a running recording's act log (record start).
	Recorded bool
	// ListedOn are the limb kinds whose summary (limbs, open) lists the op
	// among what the limb offers; Perceives ops read a desktop's picture,
	// so a desktop opened without perceive does not list them.
	ListedOn  []string
	Perceives bool
	// GoneIsDone ops succeed on a limb that is already gone (close is
	// idempotent): dispatch answers `dispatched` saying so.
	GoneIsDone bool
	// FansOut ops run the op their action names on every member of a
	// group, with `arguments` as that op's fields (group_run): policy asks
	// what that op needs, and never lets one run inside another.
	FansOut bool
	// Unlogged ops are left out of the limb's history (reading the history
	// is not an event of it).
	Unlogged bool
	// Caps are the policy capabilities the op needs; ActionCaps, when set,
	// replaces Caps per action (an action it does not name needs the union).
	Caps       []string
	ActionCaps map[string][]string
	// Variant is the field that picks what the op does ("action", or
	// "until" for wait) and Variants its closed set, in documentation order.
	Variant  string
	Variants []string
	// Fields are the request fields the op takes beside op, id and the
	// attach envelope (name, token, session), which any first request may
	// carry. Anything else is BAD_REQUEST naming the field.
	Fields []Field
	// Raises are the codes the op answers with, beyond the ones every op
	// may answer (Universal, plus LIMB_GONE for limb ops). dvvd maps a
	// connection failure onto NOT_CONNECTED for ops that do not list it.
	Raises []Code
	// Answer says in a few words what a success carries (docs).
	Answer string
	// Answers are the answer fields a success may fill, by Response's JSON
	// names. Every answer also carries result and id, and a failure the
	// error fields; a limb op's answer carries limbId, which dispatch
	// fills (AnswerFields lists it).
	Answers []string
	// AnswerType is the op's answer struct (ClickAnswer, …): exactly its
	// AnswerFields, under Response's Go names and JSON tags. dvv's own ops
	// get theirs from answers_gen.go; an op of a test's own table names its own
	// (a struct with Op and Response methods).
	AnswerType reflect.Type
	// NameMeans is the Go accessor a handler reads the envelope's name by,
	// for an op that gives it a meaning of its own (host_remove: the host;
	// token_create: the token's label); generated beside the op's Args.
	NameMeans string
	// Args is the op's argument struct (ClickArgs, …): exactly its Fields,
	// and the request's wire format. dvv's own ops get theirs from
	// args_gen.go (internal/gen/args and its field catalog); an op of a
	// test's own table names its own, embedding wire.Envelope.
	Args reflect.Type
}

// Field is one request field of an op.
type Field struct {
	Name string
	// Only lists the variants the field applies to; empty = every one.
	Only []string
	// Min and Max bound a whole-number field (nil = unbounded).
	Min, Max *int64
	// Note is a short remark for the docs (a default, a unit).
	Note string
	// Required fields must be present for every variant they apply to
	// (RequiredIn, when set, narrows that); Need says why, or what to give,
	// in the refusal.
	Required   bool
	RequiredIn []string
	Need       string
	// Values, when set, is the closed set a text field takes.
	Values []string
	// LocalPath fields name a file on dvvd's own machine, so a request
	// carrying one needs local.files; LocalIn, when set, narrows that to
	// those variants (files' to is local for get, remote for rename). The
	// op's Args field carries it as its tag, `dvv:"localpath"` or
	// `dvv:"localpath=get"`, which policy reads (LocalPaths).
	LocalPath bool
	LocalIn   []string
	// Means names, per variant, the Go accessor a handler reads the field
	// by where one JSON name means different things (files' to: LocalTo
	// for get, NewPath for rename); generated beside the op's Args.
	Means map[string]string
}

// Universal codes may come from any op: the request was malformed or too
// large, policy refused it, or dvvd hit a bug.
var Universal = []Code{BadRequest, PolicyDenied, TooLarge, Internal}

func fld(name string, opts ...func(*Field)) Field {
	f := Field{Name: name}
	for _, o := range opts {
		o(&f)
	}
	return f
}

func only(variants ...string) func(*Field) { return func(f *Field) { f.Only = variants } }
func note(s string) func(*Field)           { return func(f *Field) { f.Note = s } }

// required makes the field necessary (for the variants it applies to); the
// hint, if any, ends the refusal.
func required(hint ...string) func(*Field) {
	return func(f *Field) { f.Required, f.Need = true, strings.Join(hint, "") }
}

// oneOf closes the set of values a text field takes.
func oneOf(values ...string) func(*Field) { return func(f *Field) { f.Values = values } }

// localPath marks a field that names a file on dvvd's machine, in the
// variants given (every one when none is).
func localPath(variants ...string) func(*Field) {
	return func(f *Field) { f.LocalPath, f.LocalIn = true, variants }
}

// means names the field's accessor for a variant (Field.Means).
func means(variant, goName string) func(*Field) {
	return func(f *Field) {
		if f.Means == nil {
			f.Means = map[string]string{}
		}
		f.Means[variant] = goName
	}
}

// requiredIn makes the field necessary for those variants only.
func requiredIn(variants ...string) func(*Field) {
	return func(f *Field) { f.Required, f.RequiredIn = true, variants }
}
func atLeast(n int64) func(*Field) { return func(f *Field) { f.Min = &n } }
func within(lo, hi int64) func(*Field) {
	return func(f *Field) { f.Min, f.Max = &lo, &hi }
}

// verifyField is how long an act's answer waits for evidence of its effect
// (see Verification).
func verifyFieldSpec() Field {
	return fld("verifyMs", within(0, MaxVerifyMs), note("300; 0 answers at once, `dispatched`"))
}

// selectorFields is the limb trio, which every limb op takes.
func selectorFields() []Field {
	return []Field{fld("limbId"), fld("groupId"), fld("member", atLeast(0))}
}

func limbFields(fs ...Field) []Field { return append(selectorFields(), fs...) }

func codes(c ...Code) []Code { return c }

func answers(names ...string) []string { return names }

// Ops returns the op table, in documentation order. It is built on first
// use rather than at init: the literal is some 250 allocations, which a
// `dvv --version` or `dvv ping` never needs. Callers may read it, not
// change it.
func Ops() []OpSpec { return Builtin().Ops() }

// Table is an op table: the ops in documentation order and an index by
// name. dvv's own is Builtin(); dvvd serves the table its Config names, so a
// test can serve an op of its own without changing dvv's.
type Table struct {
	ops   []OpSpec
	index map[string]*OpSpec
}

var (
	builtin      *Table
	builtinBuilt sync.Once
)

// Builtin is dvv's own op table, built on first use.
func Builtin() *Table {
	builtinBuilt.Do(func() { builtin = NewTable(opLiteral()) })
	return builtin
}

// NewTable indexes ops, filling each op's Args and AnswerType from the
// generated types when the spec does not name its own. It panics on an op
// specified twice: that is a bug in the table literal, not an input.
func NewTable(ops []OpSpec) *Table {
	t := &Table{ops: slices.Clone(ops), index: make(map[string]*OpSpec, len(ops))}
	args, answers := argTypeMap(), answerTypeMap()
	for i := range t.ops {
		s := &t.ops[i]
		if s.Args == nil {
			s.Args = args[s.Name]
		}
		if s.AnswerType == nil {
			s.AnswerType = answers[s.Name]
		}
		if _, dup := t.index[s.Name]; dup {
			panic("wire: op " + s.Name + " is specified twice")
		}
		t.index[s.Name] = s
	}
	return t
}

// Ops lists the table's ops in documentation order; callers may read it,
// not change it.
func (t *Table) Ops() []OpSpec { return t.ops }

// Spec returns the spec of an op in the table.
func (t *Table) Spec(op string) (*OpSpec, bool) {
	s, ok := t.index[op]
	return s, ok
}

func opLiteral() []OpSpec {
	verifyField, selector := verifyFieldSpec(), selectorFields()
	desktops, terminals := []string{KindDesktop}, []string{KindTerminal}
	bothKinds := []string{KindDesktop, KindTerminal}
	return []OpSpec{
		{Name: OpHello, Answers: answers("daemon"), Answer: "(takes the envelope: `name`, `token`, `session`, see Attachments) `daemon`: version, protocol, id, pid, attachment, role, caps"},
		{Name: OpAttach, Answers: answers("daemon"), Answer: "as `hello`"},
		{Name: OpPing, Answers: answers(), NoAttach: true, Inline: true, ReadOnly: true, RetrySafe: true, Answer: "`ping`"},
		{Name: OpLimbs, Answers: answers("limbs", "available"), Inline: true, ReadOnly: true, RetrySafe: true,
			Answer: "`limbs`, `available`: id, protocol, address, port, slot, state, size, capabilities, lease"},
		{Name: OpOpen, Answers: answers("limbId", "observation", "dispatched"), Caps: []string{"limbs.open"},
			Fields: []Field{fld("hostId"), fld("address"), fld("port", within(1, 65535), note(DefaultPorts()+"; for ssh the ~/.ssh/config Port of the host or alias comes first; beside hostId it needs `hosts.write`")),
				fld("protocol", note("needed with address, refused beside hostId")), fld("slot", atLeast(0)), fld("perceive")},
			Raises: codes(SlotRefused, NotFound, HostKeyUnknown, HostKeyChanged, KeychainMissing, Unsupported, Busy),
			Answer: "`limbId`, `observation`; returns once the session task runs. Opening a saved host whose endpoint is already open applies its SSH sidecar to that limb; a different login is not switched under the live session, and `dispatched` says what was and was not applied"},
		{Name: OpClose, Answers: answers("dispatched"), Limb: true, GoneIsDone: true, Caps: []string{"limbs.open"}, Fields: []Field{fld("limbId", required())}, Raises: codes(LeaseRevoked),
			Answer: "`close`; idempotent (a gone limb is success); in-flight intents withdrawn first; `LEASE_REVOKED` while a person holds the limb"},
		{Name: OpReconnect, Answers: answers("observation"), Limb: true, Caps: []string{"limbs.open"},
			Fields: limbFields(fld("timeoutMs", atLeast(0), note("20000, clamped to 60000"))),
			Raises: codes(Timeout, AuthFailed, Unreachable, ProtocolError, HostKeyUnknown, HostKeyChanged, Unsupported, NotConnected, LeaseRevoked),
			Answer: "`observation` once connected again; the last error's code when it failed; `LEASE_REVOKED` while a person holds the limb"},
		{Name: OpStatus, ListedOn: bothKinds, Answers: answers("observation"), Limb: true, Inline: true, ReadOnly: true, RetrySafe: true, Fields: selector,
			Answer: "`observation` (`dvv.observation.v1`)"},
		{Name: OpSignals, ListedOn: bothKinds, Answers: answers("signals"), Limb: true, Inline: true, ReadOnly: true, RetrySafe: true, Fields: selector, Answer: "`signals`"},
		{Name: OpControl, Answers: answers("lease", "observation", "dispatched"), Limb: true, Recorded: true, Variant: "action", Variants: []string{"acquire", "release", "status", "yield", "yield_status"},
			ActionCaps: map[string][]string{"acquire": {"control"}, "release": {"control"}, "yield": {"control"}, "status": {}, "yield_status": {}},
			Fields: limbFields(fld("action", required()), fld("reason", only("acquire", "release", "yield")),
				fld("waitMs", only("acquire"), within(0, 600000), note("0 fails at once"))),
			Raises: codes(LeaseNotHeld, LeaseRevoked, Timeout),
			Answer: "`lease`, `observation`"},
		{Name: OpTakeover, Answers: answers("lease", "observation", "dispatched"), Limb: true, Recorded: true, Caps: []string{"takeover"}, Fields: limbFields(fld("reason")),
			Answer: "a person takes the lease at once"},
		{Name: OpHandback, Answers: answers("lease", "dispatched"), Limb: true, Caps: []string{"takeover"}, Fields: selector,
			Answer: "`lease`; a person's hold (takeover, a shared VNC viewer, the browser viewer) ends"},
		{Name: OpPause, Answers: answers("paused", "dispatched"), Caps: []string{"takeover"}, Variant: "action", Variants: []string{"pause", "resume"},
			Fields: []Field{fld("action", required()), fld("limbId"), fld("groupId"), fld("member", atLeast(0)), fld("all", only("pause"), note("every limb, also limbs opened later"))},
			Raises: codes(LimbGone),
			Answer: "`paused`: all, limbs; pause needs a limb or `all`, resume without a limb resumes everything"},
		{Name: OpShare, Answers: answers("share", "dispatched"), Limb: true, Kind: KindDesktop, KindNote: "watch terminals with dvv viewer", Caps: []string{"takeover"}, Variant: "action", Variants: []string{"start", "stop"},
			Fields: limbFields(fld("action", note("start when absent")), fld("viewOnly", only("start")), fld("tcp", only("start"), note("127.0.0.1 with a one-time password")),
				fld("port", only("start"), within(1, 65535), note("with tcp: the port on 127.0.0.1 (any free one when absent); fixed until the share stops"))),
			Raises: codes(WrongProtocol, Busy),
			Answer: "`share`: socket, viewSocket, tcp, password (shown once), expiresMs, viewOnly, viewers"},
		{Name: OpViewer, Answers: answers("viewer", "dispatched"), Variant: "action", Variants: []string{"open", "watch"},
			ActionCaps: map[string][]string{"open": {"takeover"}, "watch": {"screen.read"}},
			Fields:     []Field{fld("action", note("open when absent; watch gives a read-only link")), fld("limbId", note("the page to open"))},
			Answer:     "`viewer`: url (127.0.0.1, carrying this dvvd's secret for the browser), readOnly"},
		{Name: OpClick, ListedOn: desktops, Answers: answers("dispatched", "verification"), Limb: true, Recorded: true, Kind: KindDesktop, Dispatches: true, Caps: []string{"control"}, Variant: "action",
			Variants: []string{"move", "click", "double", "right", "middle", "drag", "scroll"},
			Fields: limbFields(fld("action", required()), fld("generation"), fld("generationFrom", oneOf("last-read")), fld("x", required()), fld("y", required()),
				fld("toX", only("drag"), required()), fld("toY", only("drag"), required()), fld("button", only("drag"), oneOf("left", "middle", "right")),
				fld("direction", only("scroll"), required(), oneOf("up", "down", "left", "right")), fld("clicks", only("scroll"), within(1, 100)), fld("modifiers"), verifyField),
			Raises: codes(Unfenced, GeometryChanged, OutOfBounds, WrongProtocol, LeaseNotHeld, LeaseRevoked, UnknownKey, NotReady, NotConnected),
			Answer: "`dispatched`"},
		{Name: OpType, ListedOn: desktops, Answers: answers("dispatched", "verification"), Limb: true, Recorded: true, Dispatches: true, Caps: []string{"control"}, Fields: limbFields(fld("text", required()), fld("wpm", within(1, 100000)), verifyField),
			Raises: codes(ScreenChanged, WrongProtocol, LeaseNotHeld, LeaseRevoked, NotImplemented, NotReady, NotConnected),
			Answer: "`dispatched`; the whole text is checked first (a control character with no key, or invalid UTF-8, is `BAD_REQUEST`; a character the session has no route for — no key on a US keyboard where the server takes scan codes only (QEMU, an RDP server without Unicode input) — is `NOT_IMPLEMENTED` naming every such character; either way nothing is typed); on a terminal limb the text goes to the PTY unfenced, and needs `exec`"},
		{Name: OpKey, ListedOn: desktops, Answers: answers("dispatched", "verification"), Limb: true, Recorded: true, Dispatches: true, Caps: []string{"control"}, Fields: limbFields(fld("keys", required("e.g. Enter, ctrl+c, super+r")), verifyField),
			Raises: codes(ScreenChanged, UnknownKey, LeaseNotHeld, LeaseRevoked, NotReady, NotConnected),
			Answer: "`dispatched`; with shift the key goes as its shifted keysym (shift+a is A, see keys.md); over RDP a chord whose key has no US scan code is `UNKNOWN_KEY` before any key goes down (a Unicode event carries no modifiers); on a terminal limb, the bytes an xterm sends for the chord (normal cursor-key mode), and needs `exec`"},
		{Name: OpScreen, ListedOn: bothKinds, Perceives: true, Answers: answers("screen", "observation"), Limb: true, Caps: []string{"screen.read"}, ReadOnly: true, RetrySafe: true, Variant: "form",
			Variants: []string{"full", "region", "damage-crop"},
			Fields: limbFields(fld("form"), fld("region", only("region"), required("{x, y, w, h}"), note("{x,y,w,h}")), fld("scale", only("full"), note("(0,1]")),
				fld("format", oneOf("png", "jpeg")),
				fld("maxEdge", only("full"), atLeast(1), note("without scale: the largest of scale 1, 1/2, 1/4, 1/8 that fits")),
				fld("maxPixels", only("full"), atLeast(1), note("as maxEdge, for width×height")), fld("out", localPath(), note("absolute path: written there instead of inline"))),
			Raises: codes(NotReady, OutOfBounds, NotConnected),
			Answer: "`screen`: mime, dataBase64 or path, width, height, imageSpace, imageSpaceLine, coverage, generation; terminals: `text` rows and `cursor`"},
		{Name: OpWait, ListedOn: bothKinds, Answers: answers("wait", "observation"), Limb: true, ReadOnly: true, RetrySafe: true, Variant: "until", VariantKinds: map[string]string{"exit": KindTerminal},
			Variants: []string{"connected", "screen-stable", "screen-changed", "text", "text-gone", "idle", "exit"},
			Fields: limbFields(fld("until", required()), fld("text", only("text", "text-gone"), required()),
				fld("quietMs", atLeast(0), note("750")), fld("timeoutMs", atLeast(0), note("8000, clamped to 25000")),
				fld("lang", only("text", "text-gone"), note("desktop text: eng (default), or e.g. eng+deu"))),
			Raises: codes(NotReady, NotConnected, Timeout, WrongProtocol, Unsupported),
			Answer: "`wait`: settled, elapsedMs, detail, exitCode, `matches` (desktop until text: where it was read, as in `find`); a timeout is `settled: false`, not an error. On a desktop, text and text-gone recognise the mirror's changed areas (docs/ocr.md); without Tesseract: `UNSUPPORTED`"},
		{Name: OpExpect, Answers: answers("expect", "observation"), Limb: true, Kind: KindDesktop, KindNote: "on a terminal use wait until text", Caps: []string{"screen.read"}, ReadOnly: true, RetrySafe: true,
			Fields: limbFields(fld("templateBase64", required("the picture to look for, as PNG"), note("PNG, at most 1024x1024")), fld("region", note("{x,y,w,h}: where to look")),
				fld("threshold", note("0..1, default 0.95")), fld("timeoutMs", atLeast(0), note("8000, clamped to 25000"))),
			Raises: codes(NotReady, NotConnected, OutOfBounds, WrongProtocol, Timeout),
			Answer: "`expect`: found, box, center, score 0..1, generation, elapsedMs; searched on the mirror where it changed; not seen by the deadline is `found: false`, not an error"},
		{Name: OpFind, Answers: answers("find", "observation"), Limb: true, Kind: KindDesktop, KindNote: "on a terminal use term_read or screen for the text grid", Caps: []string{"screen.read"}, ReadOnly: true, RetrySafe: true,
			Fields: limbFields(fld("text", note("none: every line")), fld("region", note("{x,y,w,h}")), fld("lang", note("eng (default), or e.g. eng+deu"))),
			Raises: codes(NotReady, NotConnected, OutOfBounds, WrongProtocol, Unsupported, Timeout),
			Answer: "`find`: `matches` [text, box, center, confidence 0..1, generation], `lines` (without text), lang, generation, `cached`, imageSpace (native pixels, scale 1). Desktop limbs only; case and spacing ignored; a match never spans lines; without Tesseract: `UNSUPPORTED` with how to install it"},
		{Name: OpClipboard, ListedOn: desktops, Answers: answers("clipboard", "dispatched", "verification"), Limb: true, Recorded: true, Kind: KindDesktop, KindNote: "a terminal has no clipboard: use run or files", Variant: "action", Variants: []string{"get", "set"},
			ActionCaps: map[string][]string{"get": {"clipboard.read"}, "set": {"clipboard.write"}},
			Fields:     limbFields(fld("action", required()), fld("text", only("set"), required(), note("≤ 1 MiB"))),
			Raises:     codes(NotImplemented, LeaseNotHeld, LeaseRevoked, WrongProtocol, NotReady, NotConnected),
			Answer:     "`clipboard`: text, present, via (extended-utf8, latin1 or cliprdr-unicode), unrepresentable: the characters the route could not carry, left out of what was sent (Latin-1 cut text; on RDP, characters outside the BMP such as emoji, which xrdp cannot take)"},
		{Name: OpRun, ListedOn: terminals, Answers: answers("run"), Limb: true, Recorded: true, Kind: KindTerminal, Caps: []string{"exec"},
			Fields: limbFields(fld("command", required("one string, run by the remote user's shell")), fld("cwd"), fld("timeoutMs", atLeast(1), required("run has no default deadline")),
				fld("maxOutputBytes", atLeast(0))),
			Raises: codes(WrongProtocol, Timeout, NotConnected, NotReady),
			Answer: "`run`: exitCode or signal or timedOut, stdout, stderr (or *Base64 when not UTF-8), dropped counts"},
		{Name: OpTermRead, ListedOn: terminals, Answers: answers("term"), Limb: true, Kind: KindTerminal, Caps: []string{"screen.read"}, ReadOnly: true, RetrySafe: true, Fields: limbFields(fld("since")),
			Raises: codes(NotImplemented, CursorExpired, WrongProtocol),
			Answer: "`term`: data (or dataBase64), cursor; `CURSOR_EXPIRED` when the ring overwrote the cursor"},
		{Name: OpTermSend, ListedOn: terminals, Answers: answers("dispatched", "verification"), Limb: true, Recorded: true, Kind: KindTerminal, KindNote: "on a desktop use type or key", Dispatches: true, Caps: []string{"control", "exec"}, Fields: limbFields(fld("text", note("≤ 1 MiB")), fld("bytesHex", note("≤ 1 MiB of bytes")), verifyField),
			Raises: codes(WrongProtocol, LeaseNotHeld, LeaseRevoked, NotConnected),
			Answer: "`dispatched`; `exec` as well as `control` (terminal input runs commands)"},
		{Name: OpFiles, ListedOn: bothKinds, Answers: answers("files"), Limb: true, Variant: "action", Variants: []string{"list", "get", "put", "mkdir", "remove", "rename", "home"},
			ActionCaps: map[string][]string{"list": {"files.read"}, "get": {"files.read"}, "home": {"files.read"},
				"put": {"files.write"}, "mkdir": {"files.write"}, "remove": {"files.write"}, "rename": {"files.write"}},
			Fields: limbFields(fld("action", required()), fld("path", only("list", "get", "put", "mkdir", "remove", "rename"), requiredIn("get", "put", "mkdir", "remove", "rename")),
				fld("to", only("get", "rename"), requiredIn("rename"), required("the new remote path"), localPath("get"), means("get", "LocalTo"), means("rename", "NewPath")), fld("from", only("put"), localPath("put")), fld("contentBase64", only("put"), note("≤ 16 MiB")),
				fld("mode", only("put"), within(0, 0o7777)), fld("recursive", only("remove")),
				fld("progress", only("get", "put"), note("interim `progress` lines; needs an id"))),
			Raises: codes(FilesUnavailable, NotFound, Timeout, HostKeyUnknown),
			Answer: "`files`: entries, bytes, contentBase64, home, via (ssh/sidecar). A get or put stops when its caller gives up (op `cancel`, the connection closed): `TIMEOUT`, and the destination is left as it was — put writes a temporary `.name.dvv-part-N` beside the target and renames it over the target only once complete; get to a local path does the same locally. With `progress` (get/put, and an id), `progress` lines precede the answer (see Framing)"},
		{Name: OpTransfer, Answers: answers("transfer"), Limb: true, Variant: "action", Variants: []string{"status", "cancel"},
			ActionCaps: map[string][]string{"status": {"files.read"}, "cancel": {"files.read"}}, // cancel stops work: not read-only
			Fields:     limbFields(fld("action", required()), fld("transferId", requiredIn("cancel"), required("transfer status lists them"))), Raises: codes(NotFound),
			Answer: "`transfer`: `inFlight` and `transfers` [{`transferId`, `action` get/put, `path`, `bytes` so far, `total` when known, `elapsedMs`, `bytesPerSec`}] for status; cancel (`transferId`) stops that files call, which answers `TIMEOUT` and leaves the destination as it was; `NOT_FOUND` when it is no longer in flight. Nothing is queued: a transfer lives as long as its files call"},
		{Name: OpHistory, Answers: answers("history"), Limb: true, Unlogged: true, Inline: true, ReadOnly: true, RetrySafe: true, Caps: []string{"history.read"}, Fields: selector,
			Answer: "`history`: the limb's last 128 ops — op, attachment, outcome code, timings; never text, pixels or secrets"},
		{Name: OpHosts, Answers: answers("hosts", "discovered", "discoveryNote"), Caps: []string{"hosts.read"}, ReadOnly: true, RetrySafe: true, Fields: []Field{fld("discovered")},
			Answer: "`hosts` (saved + ~/.ssh/config) with `hasCredential`; with `discovered`, also `discovered` + `discoveryNote`"},
		{Name: OpHostAdd, Answers: answers("hosts"), Caps: []string{"hosts.write"}, Fields: []Field{fld("host", required("{name, protocol, address, …}"), note("{name, protocol, address, port, user, domain, sshPort, sshUser, record}")), fld("password", note("to the keychain only"))},
			Raises: codes(KeychainMissing, Unsupported), Answer: "`hosts`"},
		{Name: OpHostRemove, NameMeans: "HostName", Answers: answers("hosts"), Caps: []string{"hosts.write"}, Fields: []Field{fld("hostId", note("or the envelope's `name`"))},
			Raises: codes(NotFound, KeychainMissing, Unsupported), Answer: "`hosts`; the keychain item is deleted too"},
		{Name: OpHostTrust, Answers: answers("dispatched"), Caps: []string{"hosts.write"},
			Fields: []Field{fld("address", required("and port, protocol")), fld("port", within(1, 65535)), fld("protocol"), fld("fingerprint")},
			Raises: codes(Unreachable, Unsupported, HostKeyChanged, Timeout),
			Answer: "`dispatched` with the trusted fingerprint"},
		{Name: OpGroupOpen, Answers: answers("group"), Caps: []string{"limbs.open"},
			Fields: []Field{fld("hostIds"), fld("addresses", note("host:port")), fld("protocol", note("needed with addresses")), fld("perceive")},
			Raises: codes(NotFound, Unreachable, AuthFailed, Timeout, SlotRefused, HostKeyUnknown, HostKeyChanged, ProtocolError, Unsupported, KeychainMissing),
			Answer: "`group`; waits for every member's first connection; any failure closes what the call opened and names the member"},
		{Name: OpGroupList, Answers: answers("group", "groups"), Inline: true, ReadOnly: true, RetrySafe: true, Fields: []Field{fld("groupId")}, Raises: codes(NotFound),
			Answer: "`groups`, or one `group` with members"},
		{Name: OpGroupGrow, Answers: answers("group"), Caps: []string{"limbs.open"},
			Fields: []Field{fld("groupId", required()), fld("hostIds"), fld("addresses"), fld("protocol"), fld("perceive")},
			Raises: codes(NotFound, Unreachable, AuthFailed, Timeout, SlotRefused, HostKeyUnknown, HostKeyChanged, ProtocolError, Unsupported, KeychainMissing),
			Answer: "`group`"},
		{Name: OpGroupShrnk, Answers: answers("group", "dispatched"), Caps: []string{"limbs.open"}, Fields: []Field{fld("groupId", required()), fld("n", atLeast(1), required("how many of the most recent members to close"))}, Raises: codes(NotFound, LeaseRevoked),
			Answer: "`group`; n larger than the group is `BAD_REQUEST` (never clamped); a removed member still in use elsewhere stays open (`dispatched` says which and why)"},
		{Name: OpGroupClose, Answers: answers("group", "dispatched"), Caps: []string{"limbs.open"}, Fields: []Field{fld("groupId", required())}, Raises: codes(NotFound, LeaseRevoked),
			Answer: "`group` as it was, with each member's `state`; members already gone are fine. A member's limb that another group holds or another client attached stays open, and its `kept` says why"},
		// group_run needs what its inner action needs (policy.RequiredFor).
		{Name: OpGroupRun, Answers: answers("members"), FansOut: true, Variant: "action", Variants: []string{"wait", "screen", "status", "signals", "type", "key", "click", "run"},
			Fields: []Field{fld("groupId", required()), fld("action", required()), fld("arguments", note("the tool's arguments minus the selector")), fld("outDir", only("screen"), localPath())},
			Raises: codes(NotFound),
			Answer: "`members`: index, limbId, response — each member's own answer or error"},
		{Name: OpTokenNew, NameMeans: "Label", Answers: answers("token", "tokens"), Caps: []string{"tokens.admin"}, Fields: []Field{fld("role"), fld("caps")}, // the label is the envelope's name
			Raises: codes(KeychainMissing, Unsupported), Answer: "`token` (shown once; labelled by `name`), `tokens`"},
		{Name: OpTokenList, Answers: answers("tokens"), Inline: true, ReadOnly: true, Caps: []string{"tokens.admin"}, Raises: codes(Unsupported), Answer: "`tokens`"},
		{Name: OpTokenRevok, Answers: answers(), Caps: []string{"tokens.admin"}, Fields: []Field{fld("tokenId", required())}, Raises: codes(NotFound, Unsupported),
			Answer: "`token_revoke`"},
		{Name: OpSubscribe, Answers: answers(), ReadOnly: true, Fields: []Field{fld("events")},
			Answer: "then `event` lines: limb.state, lease, op.start, op.end with seq and µs time; each change once (acquiring a lease already held emits nothing; closing a limb whose lease is held emits lease released before limb.state closed)"},
		{Name: OpCancel, Answers: answers("dispatched"), NoAttach: true, Inline: true, Fields: []Field{fld("cancels", required("the id of a request sent on this connection"))},
			Answer: "`dispatched`: whether a request with that id was in flight; its work stops and it is answered as the work ends"},
		{Name: OpShutdown, Answers: answers(), Caps: []string{"daemon.admin"}, Answer: "dvvd stops"},
		{Name: OpRecord, Answers: answers("recordings"), Limb: true, Caps: []string{"screen.read"}, Variant: "action", Variants: []string{"start", "stop", "list"},
			Fields: limbFields(fld("action")), Raises: codes(NotReady, NotConnected, Busy),
			Answer: "`recordings`: limbId, format (asciicast-v2 or fbs), path, actsPath, startedMs, bytes, acts, active, ended; files 0600 under $XDG_STATE_HOME/dvv/recordings; `list` gives the limb's recordings on disk, newest first"},
		{Name: OpHealth, Answers: answers("checks"), ReadOnly: true, RetrySafe: true, Caps: []string{"hosts.read"},
			Answer: "`checks`: dvvd's side of `dvv doctor` — keychain, mDNS, ssh-agent, ~/.ssh/config, each saved host reachable and trusted; each `ok`, `skip`, `warn` or `fail` with a fix"},
		{Name: OpReport, Answers: answers("report"), ReadOnly: true, RetrySafe: true, Caps: []string{"daemon.admin"},
			Answer: "`report`: dvvd's version, build, configuration, uptime and last log lines (for `dvv report`; no secret)"},
	}
}

// Listed names the ops a limb of this kind offers, in table order, as its
// summary lists them; perceive is whether a desktop limb reads its picture.
func (t *Table) Listed(kind string, perceive bool) []string {
	var out []string
	for i := range t.ops {
		s := &t.ops[i]
		if slices.Contains(s.ListedOn, kind) && (perceive || !s.Perceives || kind != KindDesktop) {
			out = append(out, s.Name)
		}
	}
	return out
}

// Spec returns the spec of an op in dvv's own table.
func Spec(op string) (*OpSpec, bool) { return Builtin().Spec(op) }

// Field returns the op's field of that name.
func (s *OpSpec) Field(name string) (*Field, bool) {
	for i := range s.Fields {
		if s.Fields[i].Name == name {
			return &s.Fields[i], true
		}
	}
	return nil, false
}

// AnswerFields lists the answer fields a success of the op may fill
// beside result and id: limbId first for limb ops (dispatch fills it),
// then Answers.
func (s *OpSpec) AnswerFields() []string {
	out := make([]string, 0, len(s.Answers)+1)
	if s.Limb && !slices.Contains(s.Answers, "limbId") {
		out = append(out, "limbId")
	}
	return append(out, s.Answers...)
}

// CanRaise reports whether the op may answer with code c.
func (s *OpSpec) CanRaise(c Code) bool {
	if c == LimbGone && s.Limb {
		return true
	}
	for _, u := range Universal {
		if u == c {
			return true
		}
	}
	for _, r := range s.Raises {
		if r == c {
			return true
		}
	}
	return false
}

// AllRaises is every code the op may answer with, sorted in the order of
// Codes: its own, LIMB_GONE for limb ops, and the universal ones.
func (s *OpSpec) AllRaises() []Code {
	var out []Code
	for _, ci := range Codes {
		if s.CanRaise(ci.Code) {
			out = append(out, ci.Code)
		}
	}
	return out
}

// AllCaps is the union of every capability the op can need.
func (s *OpSpec) AllCaps() []string {
	set := map[string]bool{}
	for _, c := range s.Caps {
		set[c] = true
	}
	for _, cs := range s.ActionCaps {
		for _, c := range cs {
			set[c] = true
		}
	}
	out := make([]string, 0, len(set))
	for c := range set {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// HasVariant reports whether v is one of the op's variants.
func (s *OpSpec) HasVariant(v string) bool {
	for _, x := range s.Variants {
		if x == v {
			return true
		}
	}
	return false
}

// RequiredFor reports whether the field must be present for variant v.
func (f *Field) RequiredFor(v string) bool {
	if !f.Required || !f.Applies(v) || (v == "" && (len(f.Only) > 0 || len(f.RequiredIn) > 0)) {
		return false
	}
	if len(f.RequiredIn) == 0 {
		return true
	}
	for _, r := range f.RequiredIn {
		if r == v {
			return true
		}
	}
	return false
}

// Applies reports whether the field applies to the variant v.
func (f *Field) Applies(v string) bool {
	if len(f.Only) == 0 || v == "" {
		return true
	}
	for _, o := range f.Only {
		if o == v {
			return true
		}
	}
	return false
}

// CheckRange reports a whole number outside the field's bounds as
// BAD_REQUEST naming the field.
func (f *Field) CheckRange(n int64) *Error {
	switch {
	case f.Min != nil && f.Max != nil && (n < *f.Min || n > *f.Max):
		return Errorf(BadRequest, "%s must be %d..%d, not %d", f.Name, *f.Min, *f.Max, n)
	case f.Min != nil && n < *f.Min:
		return Errorf(BadRequest, "%s must be at least %d, not %d", f.Name, *f.Min, n)
	case f.Max != nil && n > *f.Max:
		return Errorf(BadRequest, "%s must be at most %d, not %d", f.Name, *f.Max, n)
	}
	return nil
}

// FieldNames lists the op's field names, for messages.
func (s *OpSpec) FieldNames() string {
	if len(s.Fields) == 0 {
		return "none"
	}
	names := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// String is the op's name.
func (s *OpSpec) String() string { return fmt.Sprintf("op %s", s.Name) }

// CheckKind refuses a limb of the wrong kind for the op, or for the
// variant asked, with WRONG_PROTOCOL naming the kind it needs and what to
// use instead. This is the one place the decision is made: handlers of a
// kind-bound op can rely on the limb being of its kind.
func (s *OpSpec) CheckKind(limbID, kind, variant string) *Error {
	what, need := s.Name, s.Kind
	if vk := s.VariantKinds[variant]; need == "" && vk != "" {
		what, need = fmt.Sprintf("%s %s %s", s.Name, s.Variant, variant), vk
	}
	if need == "" || need == kind {
		return nil
	}
	msg := fmt.Sprintf("limb %s is a %s; %s needs a %s limb (%s)", limbID, kind, what, need, orList(ProtocolsOfKind(need)))
	if s.KindNote != "" && need == s.Kind {
		msg += "; " + s.KindNote
	}
	return Errorf(WrongProtocol, "%s", msg)
}
