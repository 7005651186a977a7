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
	// Brief ops are the short acts an agent makes in a loop (read the
	// screen, click, type): viewers sharing the limb yield the CPU to them
	// while they run (pkg/rfbserver Priority).
	Brief bool
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
	// Answers are the answer fields a success may fill, by their JSON names
	// in the answer catalog (internal/gen/args/answer_catalog.go). Every answer also carries result and id, and a failure the
	// error fields; a limb op's answer carries limbId, which dispatch
	// fills (AnswerFields lists it).
	Answers []string
	// AnswerType is the op's answer struct (ClickAnswer, …): exactly its
	// AnswerFields, under the catalog's Go names and JSON tags. dvv's own
	// ops get theirs from answers_gen.go; an op of a test's own table names
	// its own (a struct with an Op method).
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
	// Text, when set, makes a text field one that other people read (a
	// lease's reason): printable and at most Text bytes (CheckLabel).
	Text int
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

// label makes a text field one people read: printable, at most n bytes.
func label(n int) func(*Field) { return func(f *Field) { f.Text = n } }
func within(lo, hi int64) func(*Field) {
	return func(f *Field) { f.Min, f.Max = &lo, &hi }
}

// The kinds an op's ListedOn names.
var (
	desktops  = []string{KindDesktop}
	terminals = []string{KindTerminal}
	bothKinds = []string{KindDesktop, KindTerminal}
)

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

// opLiteral is the op table in documentation order: one entry per op,
// each in its own file (op_<name>.go, with the op's name, OpFoo; limb ops
// are the MCP tool names without "dvv_").
func opLiteral() []OpSpec {
	return []OpSpec{
		helloOp(),
		attachOp(),
		pingOp(),
		limbsOp(),
		openOp(),
		closeOp(),
		reconnectOp(),
		statusOp(),
		signalsOp(),
		controlOp(),
		takeoverOp(),
		handbackOp(),
		pauseOp(),
		shareOp(),
		viewerOp(),
		clickOp(),
		typeOp(),
		keyOp(),
		screenOp(),
		waitOp(),
		expectOp(),
		findOp(),
		inspectOp(),
		elementOp(),
		clipboardOp(),
		windowsOp(),
		windowOp(),
		workspacesOp(),
		runOp(),
		termReadOp(),
		termSendOp(),
		filesOp(),
		transferOp(),
		historyOp(),
		machineStateOp(),
		machinePauseOp(),
		machineResumeOp(),
		machinePowerOp(),
		machineResetOp(),
		machineStopOp(),
		machineStartOp(),
		machineSnapshotCreateOp(),
		machineSnapshotListOp(),
		machineSnapshotRestoreOp(),
		machineSnapshotDeleteOp(),
		hostsOp(),
		hostAddOp(),
		hostRemoveOp(),
		hostTrustOp(),
		groupOpenOp(),
		groupListOp(),
		groupGrowOp(),
		groupShrinkOp(),
		groupCloseOp(),
		groupRunOp(),
		tokenCreateOp(),
		tokenListOp(),
		tokenRevokeOp(),
		subscribeOp(),
		cancelOp(),
		shutdownOp(),
		recordOp(),
		healthOp(),
		reportOp(),
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
