package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dvvhq/dvv/pkg/wire"
)

// A tool set is a named group of tools beyond the reference's 25, served
// only when dvvmcp is started with --tools naming it (or DVV_MCP_TOOLS):
// every tool costs its schema in tools/list on every turn, so an agent
// pays only for what it asked for. Names are dvv_ plus the op (or the set's
// name and the op, where the reference already names a tool after it); schemas are
// derived from the op's types exactly as the reference tools' are.
type ToolSet struct {
	Name   string
	Doc    string // what the set is for, in one line
	Budget int    // the most its tools may add to tools/list, in bytes
	Tools  []Tool
}

// SetAll names every set at once.
const SetAll = "all"

// Costs stated in the new tools' descriptions: the answer sizes test/bench's
// TestToolAnswers measured through dvvmcp on a 1920x1080 Xvnc desktop
// (tools_measured.md, printed in docs/tools.md). A success carries the
// limb's observation (about 2.9 KB) where its op answers one.
const (
	costFind      = "Cost: no image; about 4 KB for one match (most of it the observation); every line of a busy 1080p desktop about 28 KB. A whole-screen dvv_screen is about 140 KB."
	costClickText = "Cost: no image; about 1.3 KB."
	costExpect    = "Cost: no image; about 3.3 KB, plus the template sent."
	costHistory   = "Cost: no image; up to about 35 KB (128 ops)."
	costRecord    = "Cost: no image; about 300 bytes when none is listed, more per recording."
	costReport    = "Cost: no image; about 1.2 KB."
)

const (
	docFind = "Reads the text on a desktop limb's screen (OCR, in dvvd) and answers where it is: with text, every match (the whole words " +
		"it touches, box and center in native framebuffer pixels, confidence 0..1, generation); without it, every line with its box. " +
		"region limits the read to a rectangle. The answer states the geometry generation it was read on (pass it to dvv_click) and the " +
		"observation with coverage, so text not yet received is not mistaken for absent text. Case and spacing are ignored; a match never " +
		"spans lines. Use it instead of dvv_screen to locate a button or a line: it returns no picture. " + costFind

	docClickText = "Reads the screen (as dvv_find) and clicks the center of text that is on it exactly once, with the generation that " +
		"read stated, so dvvd refuses (GEOMETRY_CHANGED) if the geometry changed between the read and the click. Text not on the screen " +
		"is NOT_FOUND and text on it more than once is BAD_REQUEST listing the candidates; nothing is clicked then. The answer proves " +
		"dispatch only: read again to see the effect. " + costClickText

	docExpect = "Waits until a picture (templateBase64, a PNG cut from an earlier dvv_screen at scale 1) is on the screen, or timeoutMs " +
		"passes, and answers where: found, box and center in native pixels, score 0..1 and the generation it was seen on (pass it to " +
		"dvv_click). Not seen by the deadline is found: false, not an error. " + costExpect

	docHistory = "Lists the limb's last 128 ops, oldest first: op, attachment, outcome code and timings; never text, pixels or secrets. " +
		"Use it to learn what was done to a limb, by whom, and what failed. " + costHistory

	docRecord = "Records what a limb shows: start writes a recording (asciicast for terminals, fbs for desktops) and its acts beside it, " +
		"stop ends it, list gives the limb's recordings on disk, newest first, with paths, sizes and acts. " + costRecord

	docWindows = "Lists the windows of a Linux desktop limb as its window manager states them (EWMH, read over the desktop's SSH sidecar): " +
		"id, title, class, pid, frame and client bounds in native framebuffer pixels (the coordinates dvv_click takes), focused, workspace, " +
		"minimized. A desktop without a sidecar, an RDP limb or a non-X11 session answers STRUCTURE_UNAVAILABLE with the reason " +
		"(dvv_signals' window_structure says the same). Cost: no image; about 250 bytes a window."

	docWindow = "Activates, moves (the frame's top left to x,y), resizes (the client area to width×height) or closes a window through " +
		"the window manager, then reads its state back and checks the mirrored screen changed there: verified only when both agree, " +
		"else a note says which side differs and why (a fixed-size dialog, a program asking before it closes, a window not drawn). Needs the lease, as input does. Cost: no image; about 400 bytes."

	docWorkspaces = "Lists the window manager's workspaces (count, current, names), or switches to workspace n and reads it back. " +
		"Cost: no image; about 150 bytes."

	docReport = "Describes dvvd for a bug report: version, build, configuration, uptime and its last log lines, with no secret. " +
		"Needs the daemon.admin capability. " + costReport
)

// Sets are the tool sets in the order --tools all serves them.
var Sets = []ToolSet{
	{Name: "text", Doc: "read text with boxes instead of pictures; click on text", Budget: 8 << 10, Tools: fromSpec([]Tool{
		{Name: "dvv_find", Op: wire.OpFind, Set: "text", Title: "Find text on the screen", Doc: docFind,
			Shell: "dvv find <limbId> \"text\"", Idem: true,
			Args: withTrio(
				maxBytes(arg("text", "The text to look for; absent: every line."), MaxText),
				readRegion,
				field("lang"),
			)},
		{Name: "dvv_click_text", Op: wire.OpClick, Also: wire.OpFind, Set: "text", Title: "Click on text", Doc: docClickText,
			Shell: "dvv click <limbId> --text \"OK\"",
			Args: withTrio(
				maxBytes(arg("text", "The text to click; it must be on the screen exactly once."), MaxText),
				readRegion,
				field("lang"),
				arg("action", "What the pointer does; default click."),
				arg("modifiers", "Keys held for the duration, e.g. [\"ctrl\"]."),
			)},
	})},
	{Name: "image", Doc: "find a picture on the screen", Budget: 4 << 10, Tools: fromSpec([]Tool{
		{Name: "dvv_expect", Op: wire.OpExpect, Set: "image", Title: "Wait for a picture", Doc: docExpect,
			Shell: "dvv expect <limbId> button.png", Idem: true,
			Args: withTrio(
				maxBytes(field("templateBase64"), 8<<20),
				Arg{Name: "region", Doc: "Look only in this rectangle, in native framebuffer pixels.", Props: readRegion.Props},
				field("threshold"),
				field("timeoutMs"),
			)},
	})},
	{Name: "structure", Doc: "windows, workspaces and accessibility elements of a Linux desktop, over its SSH sidecar", Budget: 16 << 10, Tools: fromSpec([]Tool{
		{Name: "dvv_windows", Op: wire.OpWindows, Set: "structure", Title: "List windows", Doc: docWindows,
			Shell: "dvv windows <limbId>", Idem: true, Args: trio()},
		{Name: "dvv_window", Op: wire.OpWindow, Set: "structure", Title: "Act on a window", Doc: docWindow,
			Shell: "dvv window <limbId> <window> activate",
			Args: withTrio(
				arg("action", "activate, move, resize or close."),
				arg("window", "The window's id as dvv_windows answers it (0x…)."),
				arg("x", "move: the frame's left edge, native pixels."),
				arg("y", "move: the frame's top edge."),
				arg("width", "resize: the client area's width."),
				arg("height", "resize: the client area's height."),
				arg("timeoutMs", "How long to wait for the window manager; default 1000."),
			)},
		{Name: "dvv_workspaces", Op: wire.OpWorkspaces, Set: "structure", Title: "Workspaces", Doc: docWorkspaces,
			Shell: "dvv workspaces <limbId> [N]",
			Args:  withTrio(arg("action", "list, or switch."), arg("n", "switch: the workspace to show, 0-based."))},
		{Name: "dvv_inspect", Op: wire.OpInspect, Set: "structure", Title: "Accessibility elements", Doc: docInspect,
			Shell: "dvv inspect <limbId> --window W --role R --name N", Idem: true,
			Args: withTrio(
				arg("window", "An X window id from dvv_windows (0x…), a window id from an earlier dvv_inspect, or part of a title; default every window on the screen."),
				arg("role", "Only this role, e.g. push button, text, password text, check box, combo box, menu item, table cell, slider."),
				arg("nameContains", "Only elements whose name holds this; case ignored."),
				arg("states", "Only elements with every one of these states, e.g. [\"focusable\", \"showing\"]."),
			)},
		{Name: "dvv_element", Op: wire.OpElement, Set: "structure", Title: "Act on an element", Doc: docElement,
			Shell: "dvv element <limbId> <elementId> set-text TEXT",
			Args: withTrio(
				arg("action", "focus, set-text, insert, invoke, toggle, select, value, expand, collapse, or read."),
				arg("element", "The element's id from dvv_inspect."),
				arg("text", "set-text, insert: the text."),
				arg("invoke", "invoke: the action's name; default the element's first."),
				arg("state", "toggle: on or off; default the other way."),
				arg("value", "value: the number to set, within the element's range."),
			)},
		{Name: "dvv_structure_wait", Op: wire.OpWait, Set: "structure", Title: "Wait for a window or an element", Doc: docStructureWait,
			Shell: "dvv wait <limbId> --until window --window Preferences", Idem: true,
			Args: withTrio(
				field("until"),
				arg("window", "window, window-gone, window-active: a window id from dvv_windows (0x…) or part of its title (needed); element, element-gone: the window to search, as dvv_inspect's window (default every window)."),
				arg("role", "element, element-gone: only this role, as dvv_inspect's."),
				arg("nameContains", "element, element-gone: only elements whose name holds this; case ignored."),
				arg("states", "element, element-gone: only elements with every one of these states."),
				arg("element", "text-equals, text-contains: the element's id from dvv_inspect (needed)."),
				maxBytes(field("text"), MaxText),
				field("timeoutMs"),
			)},
	})},
	{Name: "evidence", Doc: "what was done to a limb, recordings, dvvd's report", Budget: 8 << 10, Tools: fromSpec([]Tool{
		{Name: "dvv_history", Op: wire.OpHistory, Set: "evidence", Title: "What was done to a limb", Doc: docHistory,
			Shell: "dvv history <limbId>", Idem: true, Args: trio()},
		{Name: "dvv_record", Op: wire.OpRecord, Set: "evidence", Title: "Recordings of a limb", Doc: docRecord,
			Shell: "dvv record start <limbId>",
			Args:  withTrio(field("action"))},
		{Name: "dvv_report", Op: wire.OpReport, Set: "evidence", Title: "dvvd's report", Doc: docReport,
			Shell: "dvv report", Idem: true},
	})},
	{Name: "machine", Doc: "a VM's machine: state, power, reset, snapshots (the limb opened with --machine; needs machine.control)", Budget: 14 << 10, Tools: fromSpec([]Tool{
		{Name: "dvv_machine_state", Op: wire.OpMachineState, Set: "machine", Title: "Machine state", Doc: docMachineState,
			Shell: "dvv machine <limbId> state", Idem: true, Args: trio()},
		{Name: "dvv_machine_pause", Op: wire.OpMachinePause, Set: "machine", Title: "Pause the machine", Doc: "Freezes the VM (its screen stands still) until dvv_machine_resume. " + costMachine,
			Shell: "dvv machine <limbId> pause", Args: trio()},
		{Name: "dvv_machine_resume", Op: wire.OpMachineResume, Set: "machine", Title: "Resume the machine", Doc: "Runs a paused VM again; wakes a suspended one. " + costMachine,
			Shell: "dvv machine <limbId> resume", Args: trio()},
		{Name: "dvv_machine_power", Op: wire.OpMachinePower, Set: "machine", Title: "Press the power button", Doc: "ACPI power button: the guest OS decides whether to shut down. " + costMachine,
			Shell: "dvv machine <limbId> power", Args: trio()},
		{Name: "dvv_machine_reset", Op: wire.OpMachineReset, Set: "machine", Title: "Reset the machine", Doc: "Hard reset; answers once the screen is back. Read the screen before acting: the generation moved on and typing is fenced. " + costMachineObs,
			Shell: "dvv machine <limbId> reset", Args: withTrio(arg("timeoutMs", "How long to wait for the screen; default 20000."))},
		{Name: "dvv_machine_stop", Op: wire.OpMachineStop, Set: "machine", Title: "Cut the power", Doc: "Stops the VM at once, as pulling the plug (QMP ends QEMU). " + costMachine,
			Shell: "dvv machine <limbId> stop", Args: trio()},
		{Name: "dvv_machine_start", Op: wire.OpMachineStart, Set: "machine", Title: "Start the machine", Doc: "Powers on a shut-off VM. " + costMachine,
			Shell: "dvv machine <limbId> start", Args: trio()},
		{Name: "dvv_machine_snapshot_create", Op: wire.OpMachineSnapshotCreate, Set: "machine", Title: "Take a snapshot", Doc: "Snapshots the VM, with its memory where the backend can (memory says). " + costMachine,
			Shell: "dvv machine <limbId> snapshot create clean", Args: withTrio(arg("snapshot", "Its name: letters, digits, ., _ or -."))},
		{Name: "dvv_machine_snapshot_list", Op: wire.OpMachineSnapshotList, Set: "machine", Title: "List snapshots", Doc: "The VM's snapshots: name, when, whether with memory. " + costMachine,
			Shell: "dvv machine <limbId> snapshot list", Idem: true, Args: trio()},
		{Name: "dvv_machine_snapshot_restore", Op: wire.OpMachineSnapshotRestore, Set: "machine", Title: "Restore a snapshot", Doc: "Puts the VM back at a snapshot (everything since is lost); answers once the screen is back, lease kept. Read the screen before acting. " + costMachineObs,
			Shell: "dvv machine <limbId> snapshot restore clean", Args: withTrio(arg("snapshot", "The snapshot's name."), arg("timeoutMs", "How long to wait for the screen; default 20000."))},
		{Name: "dvv_machine_snapshot_delete", Op: wire.OpMachineSnapshotDelete, Set: "machine", Title: "Delete a snapshot", Doc: "Deletes a snapshot; answers those left. " + costMachine,
			Shell: "dvv machine <limbId> snapshot delete clean", Args: withTrio(arg("snapshot", "The snapshot's name."))},
	})},
	guestSet,
}

func init() {
	// The script set is served by the bridge itself (local.go): no op's
	// spec to derive its schemas from.
	Sets = append(Sets, ToolSet{Name: "script", Doc: "run a saved script or a list of steps, a report per step", Budget: 2 << 10,
		Tools: []Tool{scriptTool}})
}

const (
	docMachineState = "The VM behind a limb opened with a machine (qmp:, libvirt:): running, paused, shutoff, suspended, crashed or other, " +
		"with the hypervisor's own words. The machine tools need the machine.control capability. " + costMachine
	costMachine    = "Cost: no image; under 300 bytes."
	costMachineObs = "Cost: no image; about 3 KB (the observation)."
)

// readRegion is the rectangle a text tool reads; all four fields are needed.
var readRegion = Arg{Name: "region", Doc: "Read only this rectangle, in native framebuffer pixels.",
	Props: []Arg{arg("x", "Left edge."), arg("y", "Top edge."), arg("w", "Width."), arg("h", "Height.")}}

func init() {
	// dvv_click_text has nothing to click without text, though find reads
	// every line without it.
	for i := range Sets {
		for j := range Sets[i].Tools {
			t := &Sets[i].Tools[j]
			if t.Name == "dvv_structure_wait" {
				// The screen's and the terminal's conditions are dvv_wait's.
				a, _ := t.arg("until")
				a.Enum = structureUntil
			}
			if t.Name == "dvv_click_text" {
				a, _ := t.arg("text")
				a.Required = true
				// One point, read from the text: drag and scroll need more.
				a, _ = t.arg("action")
				a.Required, a.Enum = false, []string{"click", "double", "right", "middle", "move"}
			}
			setIndex[t.Name] = t
		}
	}
}

// alsoSpec is the spec of the tool's second op.
func (t *Tool) alsoSpec() *wire.OpSpec {
	s, ok := wire.Spec(t.Also)
	if !ok {
		panic("mcp: tool " + t.Name + " reads with op " + t.Also + ", which pkg/wire does not specify")
	}
	return s
}

// setIndex holds every tool of every set by name.
var setIndex = map[string]*Tool{}

// SetInstructions is what initialize adds to Instructions when sets are
// served: one line per served set's tools, so the agent knows to use them.
func SetInstructions(sets []string) string {
	var b strings.Builder
	for _, s := range Sets {
		if !slices.Contains(sets, s.Name) {
			continue
		}
		switch s.Name {
		case "text":
			b.WriteString("\n\nTo locate text (a button, a menu item, a line), dvv_find answers its box and center in native pixels with the generation, " +
				"and no picture: far cheaper than dvv_screen. dvv_click_text reads and clicks text in one call.")
		case "image":
			b.WriteString("\n\ndvv_expect waits for a picture (a PNG cut from dvv_screen at scale 1) and answers where it is, with the generation.")
		case "structure":
			b.WriteString("\n\nOn a Linux desktop with an SSH sidecar, dvv_windows lists its windows with bounds in native pixels; " +
				"dvv_window activates, moves, resizes or closes one and reads the result back; dvv_workspaces lists or switches workspaces. " +
				"dvv_inspect lists a window's accessibility elements (role, name, states, bounds) with ids, and dvv_element types into a field, " +
				"toggles, selects, sets a value or invokes an action by id, verified by reading it back: prefer them to pixels where they apply. " +
				"dvv_structure_wait waits for a window or an element to appear, go or become active, or for an element's text.")
		case "evidence":
			b.WriteString("\n\ndvv_history lists what was done to a limb; dvv_record records it; dvv_report describes dvvd for a bug report.")
		case "script":
			b.WriteString("\n\ndvv_script runs a known sequence of steps (a saved script or a list) in one call and answers a report per step, with no screenshot.")
		case "machine":
			b.WriteString("\n\ndvv_machine_* act on a limb's VM: state, pause, resume, power, reset, stop, start, and snapshots " +
				"(dvv_machine_snapshot_restore to go back to a clean state). After a reset or restore, read the screen before acting.")
		}
	}
	return b.String()
}

// SetNames are the names --tools accepts.
func SetNames() []string {
	names := make([]string, 0, len(Sets)+1)
	for _, s := range Sets {
		names = append(names, s.Name)
	}
	return append(names, SetAll)
}

// ParseSets reads --tools (or DVV_MCP_TOOLS): set names separated by
// commas, "all" for every set. Empty means none: the reference's tools
// only. An unknown name is an error that lists the known ones.
func ParseSets(s string) ([]string, error) {
	var out []string
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		switch {
		case name == "":
			continue
		case name == SetAll:
			out = out[:0]
			for _, set := range Sets {
				out = append(out, set.Name)
			}
			return out, nil
		case setNamed(name) == nil:
			return nil, fmt.Errorf("unknown tool set %q; the sets are %s (or leave --tools out for the reference's %d tools only)",
				name, strings.Join(SetNames(), ", "), len(Tools))
		case !slices.Contains(out, name):
			out = append(out, name)
		}
	}
	return out, nil
}

func setNamed(name string) *ToolSet {
	for i := range Sets {
		if Sets[i].Name == name {
			return &Sets[i]
		}
	}
	return nil
}

// Served is the tools a bridge with these sets enabled serves: the
// reference's, then each set's in the order of Sets.
func Served(sets []string) []*Tool {
	out := make([]*Tool, 0, len(Tools))
	for i := range Tools {
		out = append(out, &Tools[i])
	}
	for i := range Sets {
		if slices.Contains(sets, Sets[i].Name) {
			for j := range Sets[i].Tools {
				out = append(out, &Sets[i].Tools[j])
			}
		}
	}
	return out
}

// LookupAny finds a tool among the reference's and every set's, served or
// not.
func LookupAny(name string) (*Tool, bool) {
	if t, ok := Lookup(name); ok {
		return t, true
	}
	t, ok := setIndex[name]
	return t, ok
}

// clickTextHandler serves dvv_click_text as `dvv click --text` does: a
// find, then a click at the centre of its only match, fenced with the
// generation that find read on. dvvd refuses the click (GEOMETRY_CHANGED)
// when the geometry moved in between, so the click never lands on a screen
// that was not read.
func (b *Bridge) clickTextHandler(t *Tool) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		ca, werr := t.Decode(req.Params.Arguments)
		if werr != nil {
			return errorResult(werr, ""), nil
		}
		fa, werr := t.DecodeAlso(req.Params.Arguments)
		if werr != nil {
			return errorResult(werr, ""), nil
		}
		click, find := ca.(*wire.ClickArgs), fa.(*wire.FindArgs)
		if find.Text == nil || strings.TrimSpace(*find.Text) == "" {
			return errorResult(&wire.Error{Code: wire.BadRequest, Message: t.Name + ": text is empty; there is nothing to click",
				Next: "pass the text to click, e.g. a button's label; dvv_find without text lists every line"}, ""), nil
		}
		if click.Action == "" {
			click.Action = "click"
		}
		name := clientName(req)
		resp, note, err := b.att.do(ctx, name, find)
		if err != nil {
			return errorResult(err, note), nil
		}
		ans, err := wire.DecodeAnswer[wire.FindAnswer](resp)
		if err != nil || ans.Find == nil {
			return errorResult(wire.Errorf(wire.Internal, "read dvvd's find answer: %v", err), note), nil
		}
		text := *find.Text
		ms := ans.Find.Matches
		switch len(ms) {
		case 0:
			return errorResult(&wire.Error{Code: wire.NotFound, Observation: ans.Observation,
				Message: fmt.Sprintf("%q is not on the screen (read on generation %d); nothing was clicked", text, ans.Find.Generation),
				Next:    "read the screen's lines with dvv_find without text, or wait for it with dvv_wait until text"}, note), nil
		case 1:
		default:
			cands := make([]string, len(ms))
			for i, m := range ms {
				cands[i] = fmt.Sprintf("%q at %d,%d (box %d,%d %dx%d)", m.Text, m.Center.X, m.Center.Y, m.Box.X, m.Box.Y, m.Box.W, m.Box.H)
			}
			return errorResult(&wire.Error{Code: wire.BadRequest, Observation: ans.Observation,
				Message: fmt.Sprintf("%q is on the screen %d times (generation %d); nothing was clicked. Candidates: %s", text, len(ms), ms[0].Generation, strings.Join(cands, "; ")),
				Next:    fmt.Sprintf("narrow it with region or longer text, or dvv_click one centre with generation %d", ms[0].Generation)}, note), nil
		}
		m := ms[0]
		g := m.Generation
		click.X, click.Y, click.Generation = &m.Center.X, &m.Center.Y, &g
		resp, note2, err := b.att.do(ctx, name, click)
		note = joinNotes(note, note2)
		if err != nil {
			return errorResult(err, note), nil
		}
		read := fmt.Sprintf("%q read at box %d,%d %dx%d on generation %d; %s at its centre %d,%d", m.Text, m.Box.X, m.Box.Y, m.Box.W, m.Box.H, g, click.Action, m.Center.X, m.Center.Y)
		return successResult(t, resp, joinNotes(note, read)), nil
	}
}

func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// AllSetsBudget is the most tools/list may weigh with every set enabled
// (the reference's 25 tools weigh about 39 KB of it; with the structure,
// machine, guest and script sets it is about 81 KB). TestToolSetBudgets
// holds it; docs/tools.md states it.
const AllSetsBudget = 84 << 10
