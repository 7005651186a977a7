package atspi

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Refusals of an act, before anything was touched.
var (
	// ErrProtected: the element is a password field and its text is not read.
	ErrProtected = errors.New("atspi: the element is a protected (password) field; its text is never read")
	// ErrUnsupported: the element does not offer what the act needs.
	ErrUnsupported = errors.New("atspi: the element does not support this act")
	// ErrRange: a value outside the element's range.
	ErrRange = errors.New("atspi: the value is outside the element's range")
)

// Result says what an act read back. Verified is true only when the
// readback showed the act's effect; Detail says what was compared.
type Result struct {
	Verified bool
	Detail   string
	// Text is the element's text after the act, empty for a protected
	// field (and for acts that do not touch text).
	Text string
	// State is the element's states after the act.
	State []string
	// Value is a range element's value after the act.
	Value *Value
}

// actSettle is how long an act reads the element again for its new
// state (focused, checked, expanded) to show.
const actSettle = time.Second

// Focus grabs the keyboard focus and reads the focused state back.
func (c *Client) Focus(ctx context.Context, n Node) (Result, error) {
	if !n.Implements("Component") {
		return Result{}, fmt.Errorf("%w: focus needs the Component interface (%s %q has %v)", ErrUnsupported, n.Role, n.Name, n.Interfaces)
	}
	var ok bool
	if err := c.call(ctx, n.Ref, ifComponent, "GrabFocus", []any{&ok}); err != nil {
		return Result{}, err
	}
	after, err := c.settled(ctx, n.Ref, func(m Node) bool { return m.Has("focused") })
	if err != nil {
		return Result{}, err
	}
	return Result{Verified: after.Has("focused"), Detail: "focused state read back", State: after.States}, nil
}

// settled reads node r again until ok says its state has come, or for
// actSettle at most: a toolkit applies a grab or an action on its own
// main loop, after the call has answered. The last read is returned
// either way; the caller says what it shows.
func (c *Client) settled(ctx context.Context, r Ref, ok func(Node) bool) (Node, error) {
	deadline := time.Now().Add(actSettle)
	for {
		n, err := c.Node(ctx, r)
		if err != nil || ok(n) || time.Now().After(deadline) {
			return n, err
		}
		select {
		case <-ctx.Done():
			return n, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// SetText replaces the element's text and reads it back; a protected
// field's readback compares lengths only and returns no text.
func (c *Client) SetText(ctx context.Context, n Node, text string) (Result, error) {
	if !n.Implements("EditableText") || n.Has("read-only") {
		return Result{}, fmt.Errorf("%w: set-text needs an editable text (%s %q)", ErrUnsupported, n.Role, n.Name)
	}
	var ok bool
	if err := c.call(ctx, n.Ref, ifEditableText, "SetTextContents", []any{&ok}, text); err != nil {
		return Result{}, err
	}
	return c.readBack(ctx, n, text)
}

// Insert puts text at the caret and reads the whole text back.
func (c *Client) Insert(ctx context.Context, n Node, text string) (Result, error) {
	if !n.Implements("EditableText") || !n.Implements("Text") || n.Has("read-only") {
		return Result{}, fmt.Errorf("%w: insert needs an editable text (%s %q)", ErrUnsupported, n.Role, n.Name)
	}
	v, err := c.prop(ctx, n.Ref, ifText, "CaretOffset")
	if err != nil {
		return Result{}, err
	}
	caret, _ := v.Value().(int32)
	before, err := c.text(ctx, n.Ref, -1)
	if err != nil {
		return Result{}, err
	}
	runes := []rune(before)
	if caret < 0 || int(caret) > len(runes) {
		caret = int32(len(runes))
	}
	var ok bool
	if err := c.call(ctx, n.Ref, ifEditableText, "InsertText", []any{&ok}, caret, text, int32(utf8.RuneCountInString(text))); err != nil {
		return Result{}, err
	}
	want := string(runes[:caret]) + text + string(runes[caret:])
	return c.readBack(ctx, n, want)
}

// readBack compares the element's text with want. For a protected field
// the toolkit hands out its mask characters; only their count is compared
// and nothing is returned.
func (c *Client) readBack(ctx context.Context, n Node, want string) (Result, error) {
	got, err := c.text(ctx, n.Ref, -1)
	if err != nil {
		return Result{}, err
	}
	if n.Protected {
		same := utf8.RuneCountInString(got) == utf8.RuneCountInString(want)
		return Result{Verified: same, Detail: "protected field: only the length was compared, the text is not read back"}, nil
	}
	if got == want {
		return Result{Verified: true, Detail: "the text read back is exactly what was set", Text: got}, nil
	}
	return Result{Verified: false, Detail: fmt.Sprintf("the text read back differs (%d characters, %d expected)", utf8.RuneCountInString(got), utf8.RuneCountInString(want)), Text: got}, nil
}

// Read returns the element's whole text; a protected field is refused.
func (c *Client) Read(ctx context.Context, n Node) (Result, error) {
	if n.Protected {
		return Result{}, ErrProtected
	}
	if !n.Implements("Text") {
		return Result{Verified: true, Detail: "the element has no text interface; its name is its text", Text: n.Name}, nil
	}
	t, err := c.text(ctx, n.Ref, -1)
	if err != nil {
		return Result{}, err
	}
	return Result{Verified: true, Detail: "text read", Text: t}, nil
}

// actionIndex finds the action named name (case-insensitive), or the first
// of prefer the element offers, or its first action.
func (c *Client) actionIndex(ctx context.Context, n Node, name string, prefer ...string) (int32, string, error) {
	var acts []struct{ Name, Desc, Key string }
	if n.Implements("Action") {
		if err := c.call(ctx, n.Ref, ifAction, "GetActions", []any{&acts}); err != nil {
			return 0, "", err
		}
	}
	if len(acts) == 0 {
		return 0, "", fmt.Errorf("%w: %s %q offers no actions", ErrUnsupported, n.Role, n.Name)
	}
	names := make([]string, len(acts))
	for i, a := range acts {
		names[i] = a.Name
	}
	if name != "" {
		for i, a := range names {
			if strings.EqualFold(a, name) {
				return int32(i), a, nil
			}
		}
		return 0, "", fmt.Errorf("%w: %s %q has no action %q (it has %s)", ErrUnsupported, n.Role, n.Name, name, strings.Join(names, ", "))
	}
	for _, p := range prefer {
		for i, a := range names {
			if strings.EqualFold(a, p) {
				return int32(i), a, nil
			}
		}
	}
	return 0, names[0], nil
}

func (c *Client) doAction(ctx context.Context, n Node, i int32) error {
	var ok bool
	return c.call(ctx, n.Ref, ifAction, "DoAction", []any{&ok}, i)
}

// Invoke performs the named action (or the element's first). An action
// has no state of its own to read back, so the answer is not verified.
func (c *Client) Invoke(ctx context.Context, n Node, action string) (Result, error) {
	i, name, err := c.actionIndex(ctx, n, action)
	if err != nil {
		return Result{}, err
	}
	if err := c.doAction(ctx, n, i); err != nil {
		return Result{}, err
	}
	return Result{Verified: false, Detail: fmt.Sprintf("action %q performed; an action has nothing to read back", name)}, nil
}

// Toggle sets a check box or toggle to on (want "on"), off ("off") or the
// other way ("") and reads the checked state back.
func (c *Client) Toggle(ctx context.Context, n Node, want string) (Result, error) {
	if !n.Has("checkable") && !hasAction(n, "toggle") && !strings.Contains(n.Role, "check") && !strings.Contains(n.Role, "toggle") && !strings.Contains(n.Role, "radio") && !strings.Contains(n.Role, "switch") {
		return Result{}, fmt.Errorf("%w: %s %q is not a check box or toggle", ErrUnsupported, n.Role, n.Name)
	}
	n, err := c.Node(ctx, n.Ref) // the state now, not as it was listed
	if err != nil {
		return Result{}, err
	}
	on := n.Has("checked")
	target := !on
	switch want {
	case "on":
		target = true
	case "off":
		target = false
	}
	if on == target {
		return Result{Verified: true, Detail: "already " + onOff(on) + "; nothing done", State: n.States}, nil
	}
	i, _, err := c.actionIndex(ctx, n, "", "toggle", "click", "activate", "press")
	if err != nil {
		return Result{}, err
	}
	if err := c.doAction(ctx, n, i); err != nil {
		return Result{}, err
	}
	after, err := c.settled(ctx, n.Ref, func(m Node) bool { return m.Has("checked") == target })
	if err != nil {
		return Result{}, err
	}
	now := after.Has("checked")
	return Result{Verified: now == target, Detail: "checked state read back: " + onOff(now), State: after.States}, nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// Select chooses an option of a combo box (its menu item), a row of a
// list or table (one of its cells) or an item of any container with the
// Selection interface, and reads the selection back.
func (c *Client) Select(ctx context.Context, n Node) (Result, error) {
	var idx int32
	if err := c.call(ctx, n.Ref, ifAccessible, "GetIndexInParent", []any{&idx}); err != nil {
		return Result{}, err
	}
	parent, err := c.Parent(ctx, n.Ref)
	if err != nil {
		return Result{}, err
	}
	pn, err := c.Node(ctx, parent)
	if err != nil {
		return Result{}, err
	}
	if pn.Role == "menu" {
		// A combo box's options are the items of its closed menu; the combo
		// box selects by the item's index and then carries its name.
		gp, err := c.Parent(ctx, parent)
		if err == nil {
			if gn, err := c.Node(ctx, gp); err == nil && gn.Role == "combo box" && gn.Implements("Selection") {
				var ok bool
				if err := c.call(ctx, gp, ifSelection, "SelectChild", []any{&ok}, idx); err != nil {
					return Result{}, err
				}
				after, err := c.Node(ctx, gp)
				if err != nil {
					return Result{}, err
				}
				return Result{Verified: after.Name == n.Name, Detail: fmt.Sprintf("the combo box reads %q", after.Name), Text: after.Name}, nil
			}
		}
	}
	if !pn.Implements("Selection") {
		return Result{}, fmt.Errorf("%w: the parent of %s %q (%s) has no selection", ErrUnsupported, n.Role, n.Name, pn.Role)
	}
	var ok bool
	if err := c.call(ctx, parent, ifSelection, "SelectChild", []any{&ok}, idx); err != nil {
		return Result{}, err
	}
	var sel bool
	if err := c.call(ctx, parent, ifSelection, "IsChildSelected", []any{&sel}, idx); err != nil {
		return Result{}, err
	}
	return Result{Verified: sel, Detail: fmt.Sprintf("the %s reads child %d as selected: %v", pn.Role, idx, sel)}, nil
}

// SetValue sets a range element's value, refusing one outside its range,
// and reads it back.
func (c *Client) SetValue(ctx context.Context, n Node, v float64) (Result, error) {
	if !n.Implements("Value") {
		return Result{}, fmt.Errorf("%w: %s %q has no value", ErrUnsupported, n.Role, n.Name)
	}
	cur := c.value(ctx, n.Ref)
	if v < cur.Min || v > cur.Max {
		return Result{Value: cur}, fmt.Errorf("%w: %g is outside %g..%g", ErrRange, v, cur.Min, cur.Max)
	}
	if err := c.setProp(ctx, n.Ref, ifValue, "CurrentValue", v); err != nil {
		return Result{}, err
	}
	after := c.value(ctx, n.Ref)
	return Result{Verified: after.Current == v, Detail: fmt.Sprintf("value read back: %g", after.Current), Value: after}, nil
}

// Expand opens (want true) or closes an expandable element (a tree row,
// an expander, a combo box's list) and reads the expanded state back.
func (c *Client) Expand(ctx context.Context, n Node, want bool) (Result, error) {
	if !n.Has("expandable") && n.Role != "combo box" {
		return Result{}, fmt.Errorf("%w: %s %q is not expandable", ErrUnsupported, n.Role, n.Name)
	}
	n, err := c.Node(ctx, n.Ref)
	if err != nil {
		return Result{}, err
	}
	if n.Has("expanded") == want {
		return Result{Verified: true, Detail: "already " + map[bool]string{true: "expanded", false: "collapsed"}[want] + "; nothing done", State: n.States}, nil
	}
	prefer := []string{"expand or contract", "expand or collapse", "activate", "press", "click"}
	if want {
		prefer = append([]string{"expand"}, prefer...)
	} else {
		prefer = append([]string{"collapse"}, prefer...)
	}
	i, _, err := c.actionIndex(ctx, n, "", prefer...)
	if err != nil {
		return Result{}, err
	}
	if err := c.doAction(ctx, n, i); err != nil {
		return Result{}, err
	}
	after, err := c.settled(ctx, n.Ref, func(m Node) bool { return m.Has("expanded") == want })
	if err != nil {
		return Result{}, err
	}
	return Result{Verified: after.Has("expanded") == want, Detail: "expanded state read back", State: after.States}, nil
}

func hasAction(n Node, name string) bool {
	for _, a := range n.Actions {
		if strings.EqualFold(a, name) {
			return true
		}
	}
	return false
}
