package mcp

import (
	"slices"
	"strings"

	"github.com/dvvhq/dvv/pkg/wire"
)

// Tool descriptions. Each says what the tool does, what its answer proves
// and what it only dispatches; Description appends the codes it raises.
const (
	docHosts = "Lists the machines saved in dvv and, with discovered: true, those mDNS discovery has seen, each with its protocol, " +
		"address and whether a credential is stored. Secrets never appear in the answer. Pass an id to dvv_open as hostId."

	docLimbs = "Lists the limbs (live connections) this attachment can see: id, protocol, address, state, size, capabilities " +
		"and lease holder. Limbs another client opened appear under available; naming one of their ids in any tool attaches it. " +
		"Takes no arguments."

	docOpen = "Starts a connection to a saved machine (hostId) or an endpoint (address + protocol). The credential stays inside dvvd. " +
		"The answer only proves the connection task started, not that it connected: follow with dvv_wait until: \"connected\" " +
		"(or poll dvv_status). Use perceive: true on desktops you want to read with dvv_screen."

	docClose = "Closes a limb and gives back its lease; in-flight actions are withdrawn and settle first. " +
		"Closing a limb that is already gone is an ordinary success."

	docReconnect = "Drops the limb's connection, dials the machine again with the same credential and waits (timeoutMs, default 20000) " +
		"until it is back. Leases and the typing fence start fresh afterwards; read the new geometry generation before clicking."

	docStatus = "Returns the full dvv.observation.v1 object of one limb: state, protocol, size, geometry generation, coverage, lease " +
		"holder, typing fence and signals. Cheapest call there is; reads no pixels, so it never clears the typing fence. " +
		"After LEASE_REVOKED, read lease.human_took_over here: true means a person is driving and you should stop."

	docControl = "Manages the control lease that acting needs (pointer, keys, text, clipboard set, terminal input): acquire (optionally " +
		"waiting waitMs), release, yield (release with a recorded reason), status, or yield_status (read who holds it, change nothing). " +
		"A person taking over in the viewer revokes the lease at once."

	docClick = "Sends one pointer action at native framebuffer pixels: move, click, double, right, middle, drag (to toX/toY with button) " +
		"or scroll (direction, clicks). generation proves the coordinate was computed on the current geometry; without it nothing is sent. " +
		"The answer proves the event was dispatched, not what it did: read dvv_screen to see the effect. Desktop limbs only."

	docType = "Types text into whatever has focus. On a desktop limb it is refused (SCREEN_CHANGED) until this attachment has read the " +
		"screen with pixels since the last large repaint, and on a desktop never read at all; terminal limbs are not fenced. " +
		"The answer proves the keystrokes were dispatched, not where they landed."

	docKey = "Presses one named key or a chord joined with + (Enter, Escape, Tab, ctrl+c, alt+F4, ctrl+alt+Delete, super+r). Fenced like " +
		"dvv_type, because Enter or Delete on a selection is as destructive as a letter. The answer proves dispatch only."

	docScreen = "Reads the limb's pixels now and returns an image (PNG by default) with an imageSpace line beside it giving the region, " +
		"image and native sizes and the scale: map a point on the image back with native = region origin + image / scale. " +
		"Also states the geometry generation and coverage (the share of the framebuffer received), so a black first frame is not " +
		"mistaken for a black screen. A read that returns pixels clears this attachment's typing fence. form: \"damage-crop\" returns " +
		"only what changed since your last read. Terminal limbs return their text grid. A desktop opened without perceive refuses."

	docWait = "Blocks inside dvvd until the condition holds or timeoutMs passes (clamped to 25000): connected, screen-stable, " +
		"screen-changed, text / text-gone (needs text), idle, or exit. A deadline is an ordinary answer with settled: false and " +
		"the observation, not an error. This is how to learn whether a dispatched action had an effect."

	docClipboard = "get returns what is on the remote clipboard (often a password: it needs the clipboard.read capability); " +
		"set puts text there. set proves the text was handed to the remote side, not that an application took it."

	docRun = "Runs one command line on a terminal (SSH) limb in a fresh channel, starting in the home directory with a fresh environment, " +
		"and returns stdout, stderr and the exit status. The status is never invented: a signal is reported as the signal, and a command " +
		"still running at timeoutMs reports no status and says the deadline ended it. Needs the exec capability, which no role grants."

	docTermRead = "Returns terminal output since a cursor (or since the limb opened) and a new cursor. If the ring no longer holds the " +
		"start, the answer says how many bytes were lost rather than inventing them."

	docTermSend = "Writes raw input to a terminal limb: text as UTF-8 or bytesHex (03 is Ctrl+C). For prompts and full-screen programs. " +
		"It neither waits nor knows whether the input worked: follow it with dvv_wait or dvv_screen. Input to a shell runs commands, so it needs the exec capability (as do dvv_type and dvv_key on a terminal limb)."

	docFiles = "Moves files over SFTP: on SSH limbs the same connection, on desktops a second SSH connection to the same machine. " +
		"list, get, put, mkdir, remove, rename, home. Reading needs files.read and writing files.write; neither implies the other. " +
		"get without to returns the file once, in a text block after the answer: UTF-8 text as is, other bytes as base64; at most 256 KiB (TOO_LARGE beyond: save it with to). " +
		"Transfers are synchronous: the answer comes when the whole file has moved and states the byte count; " +
		"a call with _meta.progressToken receives notifications/progress (bytes so far, total size) meanwhile."

	docTransfer = "Lists the dvv_files get and put calls in flight on a limb (status: transferId, bytes so far, bytes per second) and stops one " +
		"(cancel with its transferId). Nothing is ever queued: each transfer runs inside its own dvv_files call, which then answers that it " +
		"stopped and leaves the destination as it was."

	docGroupOpen = "Opens several limbs at once and returns a groupId; address them all with dvv_group_run, or one at a time with any " +
		"tool's groupId + member. Members stay open until dvv_group_close. If any member fails to open, the ones this call opened are closed again."

	docGroupList = "Lists open groups, or one group's members with index, limbId, host and state. Reads dvvd's registry only."

	docGroupGrow = "Opens more limbs and appends them to a group with the next indexes; existing members are untouched."

	docGroupShrink = "Closes the n most recently added members and drops them from the group. Refuses, rather than clamps, an n larger than the group."

	docGroupClose = "Closes every member of a group and forgets the group. A member already gone is not an error."

	docGroupRun = "Runs one single-limb action (wait, screen, status, signals, type, key, click or run) on every member concurrently: " +
		"every member starts before any finishes, and one member failing is reported for that member without stopping the others. " +
		"arguments are that tool's own arguments without the selector trio."

	docSignals = "Lists the session's negotiated signals, each live, absent (the far side does not do it; permanent for this session) " +
		"or unknown (nothing arrived yet; may resolve), with a reason. Read led_state before typing a password. " +
		"window_structure is always absent, stated rather than left out."
)

// Description is the tool's description as tools/list shows it: the doc
// and the codes the tool raises beyond the ones every tool can (those are
// named once, in Instructions, rather than 25 times).
func (t *Tool) Description() string {
	var own []string
	for _, c := range t.Raises() {
		if !everyTool(c) {
			own = append(own, string(c))
		}
	}
	if len(own) == 0 {
		return t.Doc
	}
	return t.Doc + " Raises " + strings.Join(own, ", ") + "."
}

// everyToolCodes are the codes any tool may answer: the op table's
// universal ones and the bridge's own DAEMON_UNAVAILABLE.
func everyToolCodes() []wire.Code {
	return append(slices.Clone(wire.Universal), wire.DaemonUnavailable)
}

func everyTool(c wire.Code) bool { return slices.Contains(everyToolCodes(), c) }

// Instructions is what initialize tells the agent: the loop and the four
// codes that come up on every turn of it, with their right moves.
func Instructions() string {
	var b strings.Builder
	b.WriteString("dvv drives remote machines (VNC, RDP, SSH) through dvvd. Each live connection is a limb with a stable id.\n\n")
	b.WriteString("The loop: dvv_open (perceive: true for desktops) -> dvv_wait until connected -> dvv_control acquire -> " +
		"dvv_screen (read the picture, its imageSpace line and the geometry generation) -> act (dvv_click with that generation, " +
		"dvv_type, dvv_key) -> dvv_wait or dvv_screen to see what the act did -> repeat -> dvv_control release, dvv_close.\n")
	b.WriteString("Acts prove only that input was dispatched; only a later read proves its effect. Coordinates are native framebuffer pixels.\n\n")
	b.WriteString("Errors come back as tool results with isError: true, a code, a reason and the next move. The four codes of every loop:\n")
	for _, c := range []wire.Code{wire.LimbGone, wire.GeometryChanged, wire.ScreenChanged, wire.LeaseRevoked} {
		i := c.Info()
		b.WriteString("- " + string(c) + ": " + i.Meaning + " Next: " + toolNames(i.Next) + "\n")
	}
	b.WriteString("\nAny tool may also answer ")
	for i, c := range everyToolCodes() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(string(c))
	}
	b.WriteString("; each answer's next says what to do. DAEMON_UNAVAILABLE means dvvd is not running: tell the user to start it " +
		"(`dvvd &` or `systemctl --user start dvvd`). If dvvd restarted, the bridge reconnects by itself and says so: every lease was lost, acquire again.\n\n")
	b.WriteString("structuredContent is dvvd's answer: result (the op) and the fields the tool's outputSchema lists, or on failure " +
		"result \"error\", error {code, message, next, cause; fingerprint on HOSTKEY_UNKNOWN and HOSTKEY_CHANGED} and, when dvvd sent one, observation. The observation " +
		"(dvv.observation.v1) is described field by field in docs/tools.md#observation.")
	return b.String()
}

// toolNames turns the code table's op names (`screen`) into tool names
// (`dvv_screen`), so the advice names what the agent can call.
func toolNames(s string) string {
	for _, t := range Tools {
		s = strings.ReplaceAll(s, "`"+t.Op+"`", "`"+t.Name+"`")
	}
	return s
}
