package wire

import "encoding/json"

// OpGroupRun is op group_run's name on the wire.
const OpGroupRun = "group_run"

// GroupRunArgs are the arguments of op group_run.
type GroupRunArgs struct {
	Envelope
	GroupID string `json:"groupId,omitempty" dvv:"required"`
	// The single-limb tool to run on every member, without its dvv_ prefix.
	Action string `json:"action,omitempty" dvv:"variant,required,enum=wait|screen|status|signals|type|key|click|run"`
	// That tool's arguments, without limbId, groupId and member.
	// note: the tool's arguments minus the selector
	Arguments json.RawMessage `json:"arguments,omitempty"`
	OutDir    string          `json:"outDir,omitempty" dvv:"only=screen,localpath"`
}

// GroupRunAnswer is what a success of op group_run carries.
type GroupRunAnswer struct {
	Members []MemberResult `json:"members,omitzero"`
}

// groupRunOp is what a client needs to know of op group_run beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from GroupRunArgs and
// GroupRunAnswer (op_group_run_gen.go).
func groupRunOp() OpSpec {
	return OpSpec{
		Name:    OpGroupRun,
		FansOut: true,
		Raises:  codes(NotFound),
		Answer:  "`members`: index, limbId, response — each member's own answer or error",
	}
}
