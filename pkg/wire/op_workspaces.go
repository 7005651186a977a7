package wire

// OpWorkspaces is op workspaces's name on the wire.
const OpWorkspaces = "workspaces"

// workspacesOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_workspaces_gen.go).
func workspacesOp() OpSpec {
	return OpSpec{Name: OpWorkspaces, Answers: answers("workspaces"), Limb: true, Kind: KindDesktop,
		KindNote: "a terminal has no workspaces: use run", Variant: "action", Variants: []string{"list", "switch"},
		ActionCaps: map[string][]string{"list": {"screen.read"}, "switch": {"control"}},
		Fields:     limbFields(fld("action", required()), fld("n", only("switch"), required(), atLeast(0), note("the workspace to show, 0-based"))),
		Raises:     codes(NoStructure, NotFound, WrongProtocol, LeaseNotHeld, LeaseRevoked, NotConnected, HostKeyUnknown, Timeout),
		Answer:     "`workspaces`: count, current (0-based), names, verified (switch: _NET_CURRENT_DESKTOP read back)"}
}
