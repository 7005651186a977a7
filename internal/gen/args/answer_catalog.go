package main

import "github.com/dvvhq/dvv/pkg/wire"

// answerCatalog is every answer field an op can declare (OpSpec.Answers,
// by JSON name), with the Go name, type and JSON tag its Answer struct
// gives it, in the order a line carries them. The envelope (result, id)
// and a failure's fields are wire.Reply's, on every line or on failures
// only. wire.Event and progress lines are line kinds of their own
// (wire.EventLine, wire.ProgressLine); no op answers those two fields.
// The test reader of any line, internal/wiretest.Response, is this
// catalog behind the envelope.
type answerCatalog struct {
	// hello / attach
	Daemon *wire.DaemonInfo `json:"daemon,omitempty"`

	// most limb ops
	LimbID      string            `json:"limbId,omitempty"`
	Observation *wire.Observation `json:"observation,omitempty"`

	Limbs     []wire.LimbSummary `json:"limbs,omitzero"`
	Available []wire.LimbSummary `json:"available,omitzero"`
	Lease     *wire.Lease        `json:"lease,omitempty"`
	Signals   wire.Signals       `json:"signals,omitempty"`

	// acts: what was sent
	Dispatched string `json:"dispatched,omitempty"`
	// acts: what the answer saw of the act's effect (verifyMs)
	Verification *wire.Verification `json:"verification,omitempty"`

	Screen   *wire.Screen        `json:"screen,omitempty"`
	Wait     *wire.WaitResult    `json:"wait,omitempty"`
	Run      *wire.RunResult     `json:"run,omitempty"`
	Term     *wire.TermRead      `json:"term,omitempty"`
	Files    *wire.FilesResult   `json:"files,omitempty"`
	Clip     *wire.Clipboard     `json:"clipboard,omitempty"`
	Transfer *wire.Transfer      `json:"transfer,omitempty"`
	Find     *wire.FindResult    `json:"find,omitempty"`
	Expect   *wire.ExpectResult  `json:"expect,omitempty"`
	Inspect  *wire.InspectResult `json:"inspect,omitempty"`
	Element  *wire.ElementResult `json:"element,omitempty"`

	Hosts         []wire.Host `json:"hosts,omitzero"`
	Discovered    []wire.Host `json:"discovered,omitzero"`
	DiscoveryNote string      `json:"discoveryNote,omitempty"`

	Group   *wire.Group         `json:"group,omitempty"`
	Groups  []wire.Group        `json:"groups,omitzero"`
	Members []wire.MemberResult `json:"members,omitzero"`

	Token  string           `json:"token,omitempty"` // token_create only, shown once
	Tokens []wire.TokenInfo `json:"tokens,omitzero"`

	Checks     []wire.HealthCheck `json:"checks,omitzero"`     // health
	Recordings []wire.Recording   `json:"recordings,omitzero"` // record
	Report     *wire.DaemonReport `json:"report,omitempty"`

	// machine ops
	Machine   *wire.MachineState `json:"machine,omitempty"`
	Snapshot  *wire.Snapshot     `json:"snapshot,omitempty"`
	Snapshots []wire.Snapshot    `json:"snapshots,omitzero"`

	History []wire.HistoryEntry `json:"history,omitzero"`
	Event   *wire.Event         `json:"event,omitempty"`
	// Progress is a transfer's state on a "progress" line.
	Progress *wire.TransferInfo `json:"progress,omitempty"`

	Share  *wire.Share       `json:"share,omitempty"`
	Paused *wire.PauseResult `json:"paused,omitempty"`
	Viewer *wire.ViewerInfo  `json:"viewer,omitempty"`

	// windows, window, workspaces (docs/structure.md)
	Windows    *wire.WindowList    `json:"windows,omitempty"`
	Window     *wire.WindowAct     `json:"window,omitempty"`
	Workspaces *wire.WorkspaceList `json:"workspaces,omitempty"`
}
