package policy

import (
	"encoding/json"

	"github.com/dvvhq/dvv/pkg/wire"
)

// rule is what one op needs: the same for every action, or per action with
// a fallback for actions the table does not name (the daemon refuses those
// as BAD_REQUEST; the fallback only makes sure policy never allows more).
type rule struct {
	always   []Capability
	byAction map[string][]Capability
	other    []Capability // actions missing from byAction
}

func caps(c ...Capability) []Capability { return c }

var none = []Capability{}

// table is the op→capability table. Every op in pkg/wire has an entry; the
// test reads pkg/wire's source to keep it so.
var table = map[string]rule{
	wire.OpHello:     {always: none},
	wire.OpAttach:    {always: none},
	wire.OpPing:      {always: none},
	wire.OpSubscribe: {always: none}, // events carry states and op names, never pixels or text
	wire.OpShutdown:  {always: caps(DaemonAdmin)},

	wire.OpLimbs:     {always: none},
	wire.OpStatus:    {always: none},
	wire.OpSignals:   {always: none},
	wire.OpWait:      {always: none},
	wire.OpTransfer:  {always: none}, // nothing is ever in flight
	wire.OpGroupList: {always: none},

	wire.OpOpen:      {always: caps(LimbsOpen)},
	wire.OpClose:     {always: caps(LimbsOpen)},
	wire.OpReconnect: {always: caps(LimbsOpen)},

	wire.OpControl: {byAction: map[string][]Capability{
		"acquire":      caps(Control),
		"release":      caps(Control),
		"yield":        caps(Control),
		"status":       none,
		"yield_status": none,
	}, other: caps(Control)},
	wire.OpClick:    {always: caps(Control)},
	wire.OpType:     {always: caps(Control)},
	wire.OpKey:      {always: caps(Control)},
	wire.OpTermSend: {always: caps(Control)},
	wire.OpTakeover: {always: caps(Takeover)},

	wire.OpScreen:   {always: caps(ScreenRead)},
	wire.OpTermRead: {always: caps(ScreenRead)},

	wire.OpClipboard: {byAction: map[string][]Capability{
		"get": caps(ClipboardRead),
		"set": caps(ClipboardWrite),
	}, other: caps(ClipboardRead, ClipboardWrite)},

	wire.OpRun: {always: caps(Exec)},

	wire.OpFiles: {byAction: map[string][]Capability{
		"list":   caps(FilesRead),
		"get":    caps(FilesRead),
		"home":   caps(FilesRead),
		"put":    caps(FilesWrite),
		"mkdir":  caps(FilesWrite),
		"remove": caps(FilesWrite),
		"rename": caps(FilesWrite),
	}, other: caps(FilesRead, FilesWrite)},

	wire.OpHosts:      {always: caps(HostsRead)},
	wire.OpHostAdd:    {always: caps(HostsWrite)},
	wire.OpHostRemove: {always: caps(HostsWrite)},
	wire.OpHostTrust:  {always: caps(HostsWrite)},

	wire.OpGroupOpen:  {always: caps(LimbsOpen)},
	wire.OpGroupGrow:  {always: caps(LimbsOpen)},
	wire.OpGroupShrnk: {always: caps(LimbsOpen)},
	wire.OpGroupClose: {always: caps(LimbsOpen)},
	// group_run needs what its action needs (RequiredForGroupRun).

	wire.OpTokenNew:   {always: caps(TokensAdmin)},
	wire.OpTokenList:  {always: caps(TokensAdmin)},
	wire.OpTokenRevok: {always: caps(TokensAdmin)},

	wire.OpHistory: {always: caps(HistoryRead)},
}

// unknownOp is what an op missing from the table needs: the strongest
// bundled capability, so a new op is never open by accident. The daemon
// answers unknown ops BAD_REQUEST before asking policy.
var unknownOp = caps(DaemonAdmin)

// Known reports whether op is in the table.
func Known(op string) bool {
	if op == wire.OpGroupRun {
		return true
	}
	_, ok := table[op]
	return ok
}

// Required returns the capabilities an op with an action needs. It does not
// see request fields that name local paths; RequiredFor does.
func Required(op string, action string) []Capability {
	if op == wire.OpGroupRun {
		return RequiredForGroupRun(action)
	}
	r, ok := table[op]
	if !ok {
		return append([]Capability{}, unknownOp...)
	}
	if r.byAction == nil {
		return append([]Capability{}, r.always...)
	}
	if c, ok := r.byAction[action]; ok {
		return append([]Capability{}, c...)
	}
	return append([]Capability{}, r.other...)
}

// RequiredForGroupRun is what group_run with this action needs: exactly what
// the single-limb op of that name needs. A group_run cannot launder a
// capability.
func RequiredForGroupRun(action string) []Capability {
	if action == wire.OpGroupRun || action == "" {
		return append([]Capability{}, unknownOp...)
	}
	return Required(action, "")
}

// RequiredFor returns what a whole request needs: its op and action, plus
// local.files when it names a path on dvvd's own machine, plus, for
// group_run, what its inner arguments need.
func RequiredFor(req *wire.Request) []Capability {
	if req == nil {
		return append([]Capability{}, unknownOp...)
	}
	var need []Capability
	if req.Op == wire.OpGroupRun {
		inner := wire.Request{}
		if len(req.Arguments) > 0 {
			if err := json.Unmarshal(req.Arguments, &inner); err != nil {
				// The daemon refuses malformed arguments; policy asks the most.
				return append([]Capability{}, unknownOp...)
			}
		}
		inner.Op = req.Action
		if inner.Op == "" || inner.Op == wire.OpGroupRun {
			return append([]Capability{}, unknownOp...)
		}
		need = RequiredFor(&inner)
		if req.OutDir != "" {
			need = addCap(need, LocalFiles)
		}
		return need
	}
	need = Required(req.Op, req.Action)
	if namesLocalPath(req) {
		need = addCap(need, LocalFiles)
	}
	return need
}

// namesLocalPath reports whether a request reads or writes a file on the
// machine dvvd runs on.
func namesLocalPath(req *wire.Request) bool {
	switch req.Op {
	case wire.OpScreen:
		return req.Out != ""
	case wire.OpFiles:
		return (req.Action == "get" && req.To != "") || (req.Action == "put" && req.From != "")
	}
	return req.OutDir != ""
}

func addCap(cs []Capability, c Capability) []Capability {
	for _, x := range cs {
		if x == c {
			return cs
		}
	}
	return append(cs, c)
}
