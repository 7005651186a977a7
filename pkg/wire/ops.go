package wire

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
)

// OpSpec is what a client needs to know of one op: its fields and
// variants, the capabilities it needs, the codes it answers with, whether
// it is read-only and safe to retry. dvvd's dispatch, policy's capability
// table, the MCP bridge's annotations and retry rule, the generated docs
// and the tests all read this table; nothing else lists the ops. The op's
// fields, variants and answer fields are not written here: they are read
// from its Args and Answer types (op_<name>.go, their tags and doc
// comments; op_<name>_gen.go). What only dvvd's own work needs (viewers
// yield to it, it goes into a recording or the history, a limb's summary
// lists it) is declared beside its handler, in pkg/daemon's register.
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
	// connection's reading goroutine even when they carry an id. A client
	// sees it (their answers come in the order sent; protocol.md marks
	// them), so it stays in the spec.
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
	// shows them. It stays here because a client reads it: the MCP bridge
	// words an act's answer as sent, not seen, unless its verification saw
	// the effect.
	Dispatches bool
	// FansOut ops run the op their action names on every member of a
	// group, with `arguments` as that op's fields (group_run): policy asks
	// what that op needs, and never lets one run inside another. It stays
	// here because it is what a token holder needs to run it: the
	// capabilities of another op.
	FansOut bool
	// Caps are the policy capabilities the op needs; ActionCaps, when set,
	// replaces Caps per action (an action it does not name needs the union).
	Caps       []string
	ActionCaps map[string][]string
	// Variant is the field that picks what the op does ("action", or
	// "until" for wait) and Variants its closed set, in documentation order:
	// the Args field tagged `dvv:"variant,enum=…"`.
	Variant  string
	Variants []string
	// Fields are the request fields the op takes beside op, id and the
	// attach envelope (name, token, session), which any first request may
	// carry, read from its Args type. Anything else is BAD_REQUEST naming
	// the field.
	Fields []Field
	// Raises are the codes the op answers with, beyond the ones every op
	// may answer (Universal, plus LIMB_GONE for limb ops). dvvd maps a
	// connection failure onto NOT_CONNECTED for ops that do not list it.
	Raises []Code
	// Answer says in a few words what a success carries (docs).
	Answer string
	// Answers are the answer fields a success may fill, by their JSON
	// names: its AnswerType's, in the order a line carries them. Every
	// answer also carries result and id, and a failure the error fields; a
	// limb op's answer carries limbId, which dispatch fills (AnswerFields
	// lists it).
	Answers []string
	// AnswerType is the op's answer struct (ClickAnswer, …), declared in
	// its op_<name>.go. An op of a test's own table names its own (a
	// struct with an Op method).
	AnswerType reflect.Type
	// Args is the op's argument struct (ClickArgs, …): exactly its Fields,
	// and the request's wire format, declared in its op_<name>.go. An op of
	// a test's own table names its own, embedding wire.Envelope, and lists
	// its Fields.
	Args reflect.Type
}

// Field is one request field of an op, as its Args type declares it: the
// JSON name from its json tag, the rest from its dvv and need tags and its
// doc comment (op_<name>_gen.go writes them out):
//
//	// drag only: where the button is released (x).
//	ToX *int `json:"toX,omitempty" dvv:"required,only=drag"`
//	// note: 300; 0 answers at once, `dispatched`
//	VerifyMs *int `json:"verifyMs,omitempty" dvv:"min=0,max=MaxVerifyMs"`
//
// The dvv tag's keys are variant (the field picks the variant; enum lists
// the variants), required (or required=a|b, for those variants), only=a|b,
// enum=a|b, min=N, max=N, label=N and localpath (or localpath=a|b).
type Field struct {
	Name string
	// Only lists the variants the field applies to; empty = every one.
	Only []string
	// Min and Max bound a whole-number field (nil = unbounded).
	Min, Max *int64
	// Note is a short remark for the docs (a default, a unit): the field's
	// doc comment from a line starting "note:".
	Note string
	// Help is the field's help text, its doc comment before any "note:":
	// what the MCP tool's argument says of it (manifest.go's field), and
	// the CLI's flag where it reads fieldHelp.
	Help string
	// Required fields must be present for every variant they apply to
	// (RequiredIn, when set, narrows that); Need (the need tag) says why, or
	// what to give, in the refusal.
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
}

// Universal codes may come from any op: the request was malformed or too
// large, policy refused it, or dvvd hit a bug.
var Universal = []Code{BadRequest, PolicyDenied, TooLarge, Internal}

// bound is a field's Min or Max, as its generated spec writes it.
func bound(n int64) *int64 { return &n }

func codes(c ...Code) []Code { return c }

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

// NewTable indexes ops, filling each op of dvv's own that does not name
// its Args from its types (fields, variants, answer fields; op_*_gen.go).
// It panics on an op specified twice: that is a bug in the table literal,
// not an input.
func NewTable(ops []OpSpec) *Table {
	t := &Table{ops: slices.Clone(ops), index: make(map[string]*OpSpec, len(ops))}
	for i := range t.ops {
		s := &t.ops[i]
		if fill := fromTypes(s.Name); s.Args == nil && fill != nil {
			fill(s)
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
