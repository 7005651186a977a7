package wire

// OpWorkspaces is op workspaces's name on the wire.
const OpWorkspaces = "workspaces"

// WorkspacesArgs are the arguments of op workspaces.
type WorkspacesArgs struct {
	Envelope
	Target
	Action string `json:"action,omitempty" dvv:"variant,required,enum=list|switch"`
	// note: the workspace to show, 0-based
	N *int `json:"n,omitempty" dvv:"required,only=switch,min=0"`
}

// WorkspacesAnswer is what a success of op workspaces carries.
type WorkspacesAnswer struct {
	LimbID     string         `json:"limbId,omitempty"`
	Workspaces *WorkspaceList `json:"workspaces,omitempty"`
}

// workspacesOp is what a client needs to know of op workspaces beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from WorkspacesArgs and
// WorkspacesAnswer (op_workspaces_gen.go).
func workspacesOp() OpSpec {
	return OpSpec{
		Name:       OpWorkspaces,
		Limb:       true,
		Kind:       KindDesktop,
		KindNote:   "a terminal has no workspaces: use run",
		ActionCaps: map[string][]string{"list": {"screen.read"}, "switch": {"control"}},
		Raises:     codes(NoStructure, NotFound, WrongProtocol, LeaseNotHeld, LeaseRevoked, NotConnected, HostKeyUnknown, Timeout),
		Answer:     "`workspaces`: count, current (0-based), names, verified (switch: _NET_CURRENT_DESKTOP read back)",
	}
}
