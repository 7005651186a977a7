package mcp

const (
	docInspect = "Lists the accessibility elements (AT-SPI) of a Linux desktop's windows, read over its SSH sidecar: each element's id, role, " +
		"name, states, actions, text (never a password field's), value, and bounds and center in native framebuffer pixels (what " +
		"dvv_click takes). window (an id from dvv_windows, 0x…, or part of a title), role, nameContains and states narrow it; without " +
		"them every element of every window on the screen is listed, which can be large: narrow it. Use it instead of dvv_screen to " +
		"find a field, button, check box or option by name. Cost: no image; about 150 bytes an element."

	docElement = "Acts on one element by the id dvv_inspect gave: focus, set-text, insert (at the caret), invoke (an action by name, " +
		"default the first), toggle (state on or off, default the other way), select (a combo box's option, a list's row), value (within " +
		"its range), expand, collapse, read. The id is refused (STALE_ELEMENT) when its window moved or its layout changed since: inspect " +
		"again. verified is true only for what was read back (the exact text; a password field's length, never its text; the checked " +
		"state; the selection; the value; the focus). Cost: no image; about 600 bytes."

	docStructureWait = "Blocks inside dvvd until a window or an accessibility element of a Linux desktop (read over its SSH sidecar) " +
		"is there, or timeoutMs passes: window, window-gone, window-active (a window whose id is window or whose title holds it is " +
		"listed, is not, is the active one; detail names it), element, element-gone (an element matching window, role, nameContains " +
		"and states, as dvv_inspect; elements lists those found), text-equals, text-contains (element's text, never a password " +
		"field's). A deadline is settled: false, not an error. " + costStructureWait

	costStructureWait = "Cost: no image; about 1.8 KB with one element found (most of it the observation), more per further element."
)

// structureUntil are the wait conditions dvv_structure_wait offers: the
// structure family of op wait's variants.
var structureUntil = []string{"window", "window-gone", "window-active", "element", "element-gone", "text-equals", "text-contains"}
