package atspi

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/dvvhq/dvv/pkg/untrusted"
	"github.com/godbus/dbus/v5"
)

// Rect is a box in screen pixels (the X root window's coordinates, which
// are the framebuffer's on an Xvnc or Xorg display).
type Rect struct{ X, Y, W, H int }

// Node is one accessible object as read.
type Node struct {
	Ref        Ref
	Parent     int // index in the snapshot, -1 for a window
	Depth      int
	Role       string
	Name       string
	States     []string
	Interfaces []string
	Actions    []string
	Bounds     Rect
	// Protected is a password field: its text is never read.
	Protected bool
	// childCount is the object's ChildCount as read, -1 when unknown.
	childCount int
	// Text is the element's text (Text interface, first TextLimit runes),
	// empty for a protected field.
	Text string
	// Value is the Value interface's range and current value.
	Value *Value
}

// Value is a range element's value.
type Value struct{ Min, Max, Current, Step float64 }

// Has reports whether the node is in state s.
func (n *Node) Has(s string) bool {
	for _, x := range n.States {
		if x == s {
			return true
		}
	}
	return false
}

// Implements reports whether the node has the interface (short name:
// "Text", "Action", …).
func (n *Node) Implements(iface string) bool {
	for _, x := range n.Interfaces {
		if x == iface {
			return true
		}
	}
	return false
}

// Window is a top-level accessible of a program.
type Window struct {
	Node
	App string // the program's accessible name
	PID uint32
}

// TextLimit bounds the text an inspect reads per element.
const TextLimit = 256

// Bounds on what a program on the bus can make dvv hold: any program may
// name its elements with megabytes and claim any number of actions.
const (
	// MaxName is a name's (role's, action's, program's) length in bytes,
	// cut on a character.
	MaxName = 1024
	// MaxList is how many actions or interfaces an element keeps.
	MaxList = 64
	// MaxAppWindows is how many top-level windows of one program are read.
	MaxAppWindows = 256
)

// nameOf is a Name property's string, bounded.
func nameOf(v dbus.Variant) string {
	s, _ := v.Value().(string)
	return untrusted.Text(s, MaxName)
}

// MaxNodes bounds a walk, so a huge tree (a spreadsheet) cannot hold an op.
var MaxNodes = 4000

// walkers bounds concurrent calls per walk: calls are pipelined on one
// connection, so a few in flight hide the round trip of a forwarded socket.
const walkers = 8

// Windows lists every program's top-level accessibles.
func (c *Client) Windows(ctx context.Context) ([]Window, error) {
	var apps []Ref
	if err := c.call(ctx, Ref{registryName, rootPath}, ifAccessible, "GetChildren", []any{&apps}); err != nil {
		return nil, err
	}
	var mu sync.Mutex
	var out []Window
	var wg sync.WaitGroup
	for _, app := range apps {
		if app.null() {
			continue
		}
		wg.Add(1)
		go func(app Ref) {
			defer wg.Done()
			var kids []Ref
			if c.call(ctx, app, ifAccessible, "GetChildren", []any{&kids}) != nil {
				return // a program leaving while listed is not an error
			}
			appName := ""
			if v, err := c.prop(ctx, app, ifAccessible, "Name"); err == nil {
				appName = nameOf(v)
			}
			var pid uint32
			_ = c.call(ctx, Ref{"org.freedesktop.DBus", "/org/freedesktop/DBus"}, "org.freedesktop.DBus", "GetConnectionUnixProcessID", []any{&pid}, app.Bus)
			seen := map[Ref]bool{}
			for _, k := range kids {
				if k.null() || seen[k] {
					continue
				}
				if seen[k] = true; len(seen) > MaxAppWindows {
					break
				}
				n, err := c.node(ctx, k, false)
				if err != nil {
					continue
				}
				n.Parent = -1
				mu.Lock()
				out = append(out, Window{Node: n, App: appName, PID: pid})
				mu.Unlock()
			}
		}(app)
	}
	wg.Wait()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Ref.Bus != out[j].Ref.Bus {
			return out[i].Ref.Bus < out[j].Ref.Bus
		}
		return out[i].Ref.Path < out[j].Ref.Path
	})
	return out, nil
}

// Node reads one object.
func (c *Client) Node(ctx context.Context, r Ref) (Node, error) { return c.node(ctx, r, true) }

// node reads one object's role, name, states, interfaces, bounds and, when
// full, its actions, text and value. The calls that need nothing but the
// object go out together, then those its interfaces call for: the calls are
// pipelined on the connection, so an object costs two round trips, not one
// per property.
func (c *Client) node(ctx context.Context, r Ref, full bool) (Node, error) {
	n := Node{Ref: r, childCount: -1}
	var (
		roleErr, propsErr, extErr error
		props                     map[string]dbus.Variant
		states                    []uint32
		ifaces                    []string
		bounds                    Rect
	)
	together(
		func() { roleErr = c.call(ctx, r, ifAccessible, "GetRoleName", []any{&n.Role}) },
		// Name and ChildCount in one call; a leaf's children are then
		// never asked for.
		func() { propsErr = c.call(ctx, r, ifProperties, "GetAll", []any{&props}, ifAccessible) },
		func() {
			if c.call(ctx, r, ifAccessible, "GetState", []any{&states}) == nil {
				n.States = stateNames(states)
			}
		},
		func() { _ = c.call(ctx, r, ifAccessible, "GetInterfaces", []any{&ifaces}) },
		// Asked of every object: nearly all are components, and one that is
		// not answers an error that is dropped below.
		func() { bounds, extErr = c.extents(ctx, r) },
	)
	if roleErr != nil {
		return n, roleErr
	}
	n.Role = untrusted.Text(n.Role, MaxName)
	if propsErr == nil {
		n.Name = nameOf(props["Name"])
		if cc, ok := props["ChildCount"].Value().(int32); ok {
			n.childCount = int(cc) // only a count of 0 is acted on: it may lie
		}
	} else if v, err := c.prop(ctx, r, ifAccessible, "Name"); err == nil {
		n.Name = nameOf(v) // a toolkit without GetAll
	}
	for _, i := range ifaces[:min(len(ifaces), MaxList)] {
		n.Interfaces = append(n.Interfaces, strings.TrimPrefix(i, "org.a11y.atspi."))
	}
	sort.Strings(n.Interfaces)
	n.Protected = n.Role == "password text"
	if n.Implements("Component") && extErr == nil {
		n.Bounds = bounds
	}
	if full {
		c.details(ctx, &n)
	}
	return n, nil
}

// details reads what n's interfaces offer beyond the basics: its actions,
// text and value, and the name of the label that labels it when it has
// none of its own.
func (c *Client) details(ctx context.Context, n *Node) {
	r := n.Ref
	var more []func()
	if n.Name == "" {
		more = append(more, func() { n.Name = c.labelledBy(ctx, r) })
	}
	if n.Implements("Action") {
		more = append(more, func() {
			var acts []struct{ Name, Desc, Key string }
			if err := c.call(ctx, r, ifAction, "GetActions", []any{&acts}); err == nil {
				for _, a := range acts[:min(len(acts), MaxList)] {
					n.Actions = append(n.Actions, untrusted.Text(a.Name, MaxName))
				}
			}
		})
	}
	if n.Implements("Text") && !n.Protected {
		more = append(more, func() {
			if t, err := c.text(ctx, r, TextLimit); err == nil {
				n.Text = untrusted.Text(t, 4*TextLimit) // a program may answer more than asked
			}
		})
	}
	if n.Implements("Value") {
		more = append(more, func() { n.Value = c.value(ctx, r) })
	}
	together(more...)
}

// together runs fs at once and returns when all have: each writes its own
// part of the answer.
func together(fs ...func()) {
	if len(fs) == 1 {
		fs[0]()
		return
	}
	var wg sync.WaitGroup
	for _, f := range fs {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	wg.Wait()
}

// Extents reads an object's bounds in screen coordinates.
func (c *Client) Extents(ctx context.Context, r Ref) (Rect, error) { return c.extents(ctx, r) }

// extents reads an object's bounds in screen coordinates.
func (c *Client) extents(ctx context.Context, r Ref) (Rect, error) {
	var e struct{ X, Y, W, H int32 }
	if err := c.call(ctx, r, ifComponent, "GetExtents", []any{&e}, uint32(0)); err != nil {
		return Rect{}, err
	}
	return Rect{int(e.X), int(e.Y), int(e.W), int(e.H)}, nil
}

// relationLabelledBy is ATSPI_RELATION_LABELLED_BY.
const relationLabelledBy = 2

// labelledBy names an unnamed element after the label that labels it (a
// form's entry beside its "Name" label), so a search by name finds it.
func (c *Client) labelledBy(ctx context.Context, r Ref) string {
	var rels []struct {
		Type    uint32
		Targets []Ref
	}
	if c.call(ctx, r, ifAccessible, "GetRelationSet", []any{&rels}) != nil {
		return ""
	}
	for _, rel := range rels {
		if rel.Type != relationLabelledBy {
			continue
		}
		for _, t := range rel.Targets {
			if v, err := c.prop(ctx, t, ifAccessible, "Name"); err == nil {
				if s := nameOf(v); s != "" {
					return s
				}
			}
		}
	}
	return ""
}

func (c *Client) text(ctx context.Context, r Ref, limit int) (string, error) {
	end := int32(-1)
	if limit > 0 {
		end = int32(limit)
	}
	var t string
	err := c.call(ctx, r, ifText, "GetText", []any{&t}, int32(0), end)
	return t, err
}

func (c *Client) value(ctx context.Context, r Ref) *Value {
	var props map[string]dbus.Variant
	if c.call(ctx, r, ifProperties, "GetAll", []any{&props}, ifValue) == nil {
		get := func(name string) float64 { f, _ := props[name].Value().(float64); return f }
		return &Value{Min: get("MinimumValue"), Max: get("MaximumValue"), Current: get("CurrentValue"), Step: get("MinimumIncrement")}
	}
	get := func(name string) float64 { // a toolkit without GetAll
		v, err := c.prop(ctx, r, ifValue, name)
		if err != nil {
			return 0
		}
		f, _ := v.Value().(float64)
		return f
	}
	return &Value{Min: get("MinimumValue"), Max: get("MaximumValue"), Current: get("CurrentValue"), Step: get("MinimumIncrement")}
}

// Children lists an object's children.
func (c *Client) Children(ctx context.Context, r Ref) ([]Ref, error) {
	var kids []Ref
	err := c.call(ctx, r, ifAccessible, "GetChildren", []any{&kids})
	return kids, err
}

// Parent reads an object's parent.
func (c *Client) Parent(ctx context.Context, r Ref) (Ref, error) {
	v, err := c.prop(ctx, r, ifAccessible, "Parent")
	if err != nil {
		return Ref{}, err
	}
	var p Ref
	if err := dbus.Store([]any{v.Value()}, &p); err != nil {
		return Ref{}, mapErr(err)
	}
	return p, nil
}

// Walk reads the tree under root (root included, at index 0), breadth
// first, at most MaxNodes objects; truncated says the bound was met.
// Children of an object that manages its descendants (a table with a
// million cells) beyond its first MaxNodes are not read. Each object is
// read once: a child named again (a program whose children form a cycle)
// is not read twice.
func (c *Client) Walk(ctx context.Context, root Ref) (nodes []Node, truncated bool, err error) {
	return c.WalkRole(ctx, root, "")
}

// WalkRole is Walk for a search by role (exact, case ignored; "" is every
// role): an element of another role is read without its details (actions,
// text, value, the label naming an unnamed one), as a search that cannot
// answer it does not need them. Its role, name, states and bounds are read,
// for the walk and for naming the fields and cells beside it.
func (c *Client) WalkRole(ctx context.Context, root Ref, role string) (nodes []Node, truncated bool, err error) {
	wanted := func(n *Node) bool { return role == "" || strings.EqualFold(n.Role, role) }
	first, err := c.node(ctx, root, false)
	if err != nil {
		return nil, false, err
	}
	if wanted(&first) {
		c.details(ctx, &first)
	}
	first.Parent = -1
	nodes = []Node{first}
	seen := map[Ref]bool{root: true}
	level := []int{0}
	for len(level) > 0 {
		var kids []kid
		kids, truncated = c.levelKids(ctx, nodes, level, seen)
		read := make([]Node, len(kids))
		ok := make([]bool, len(kids))
		each(len(kids), func(j int) {
			k := kids[j]
			n, err := c.node(ctx, k.ref, false)
			if err != nil {
				return
			}
			if wanted(&n) {
				c.details(ctx, &n)
			}
			n.Parent, n.Depth = k.parent, nodes[k.parent].Depth+1
			read[j], ok[j] = n, true
		})
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		level = level[:0]
		for j := range read {
			if ok[j] {
				nodes = append(nodes, read[j])
				level = append(level, len(nodes)-1)
			}
		}
		if truncated {
			break
		}
	}
	nameFromLabels(nodes)
	return nodes, truncated, nil
}

// kid is a child to read: its parent's index in the walk and its ref.
type kid struct {
	parent int
	ref    Ref
}

// levelKids lists the children of the walk's nodes at level (indexes),
// asking only those that are on the screen (or a combo box's options) and
// not leaves, several at a time. A child already seen (named twice, or a
// cycle) is left out and marked in seen; full says the walk's MaxNodes was
// met while they were listed.
func (c *Client) levelKids(ctx context.Context, nodes []Node, level []int, seen map[Ref]bool) (kids []kid, full bool) {
	var parents []int
	for _, i := range level {
		if !nodes[i].Has("showing") && i != 0 && !optionsOfCombo(nodes, i) {
			continue // a hidden branch (a closed menu) is not on the screen
		}
		if nodes[i].childCount == 0 {
			continue // a leaf, as its ChildCount said
		}
		parents = append(parents, i)
	}
	refs := make([][]Ref, len(parents))
	each(len(parents), func(j int) { refs[j], _ = c.Children(ctx, nodes[parents[j]].Ref) })
	for j, i := range parents {
		for _, r := range refs[j] {
			if r.null() || seen[r] {
				continue
			}
			if len(nodes)+len(kids) >= MaxNodes {
				return kids, true
			}
			seen[r] = true
			kids = append(kids, kid{i, r})
		}
	}
	return kids, false
}

// each runs f(0) … f(n-1), walkers at a time, and returns when all have.
func each(n int, f func(int)) {
	sem := make(chan struct{}, walkers)
	var wg sync.WaitGroup
	for j := 0; j < n; j++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(j int) {
			defer func() { <-sem; wg.Done() }()
			f(j)
		}(j)
	}
	wg.Wait()
}

// stateNames turns AT-SPI's state bit set (two 32-bit words) into names.
func stateNames(words []uint32) []string {
	var out []string
	for w, bits := range words {
		for b := 0; b < 32; b++ {
			if bits&(1<<b) == 0 {
				continue
			}
			i := w*32 + b
			if i < len(stateTable) && stateTable[i] != "" {
				out = append(out, stateTable[i])
			}
		}
	}
	return out
}

// stateTable is AtspiStateType in order.
var stateTable = []string{
	"invalid", "active", "armed", "busy", "checked", "collapsed", "defunct", "editable", "enabled",
	"expandable", "expanded", "focusable", "focused", "has-tooltip", "horizontal", "iconified", "modal",
	"multi-line", "multiselectable", "opaque", "pressed", "resizable", "selectable", "selected",
	"sensitive", "showing", "single-line", "stale", "transient", "vertical", "visible",
	"manages-descendants", "indeterminate", "required", "truncated", "animated", "invalid-entry",
	"supports-autocompletion", "selectable-text", "is-default", "visited", "checkable", "has-popup",
	"read-only",
}

// optionsOfCombo says node i is the closed list of a combo box, whose items
// are its options: select needs their ids though they are not on screen.
func optionsOfCombo(nodes []Node, i int) bool {
	p := nodes[i].Parent
	return p >= 0 && nodes[p].Role == "combo box"
}

// fieldRoles are the elements a form labels with a label beside them
// rather than with a relation.
var fieldRoles = map[string]bool{"text": true, "password text": true, "combo box": true, "spin button": true, "slider": true, "entry": true}

// nameFromLabels names each unnamed field after the label on its row, just
// left of it (a form laid out as a grid of label and field, as zenity's
// forms are), so a search by name finds the field a person would read.
func nameFromLabels(nodes []Node) {
	for i := range nodes {
		f := &nodes[i]
		if f.Name == "" && f.Role == "table cell" && f.Bounds.W > 0 {
			f.Name = rowText(nodes, i)
			continue
		}
		if f.Name != "" || !fieldRoles[f.Role] || f.Bounds.W <= 0 {
			continue
		}
		best, bestGap := -1, 1<<30
		for j := range nodes {
			l := nodes[j]
			if l.Role != "label" || l.Name == "" || l.Bounds.W <= 0 {
				continue
			}
			ly := l.Bounds.Y + l.Bounds.H/2
			gap := f.Bounds.X - (l.Bounds.X + l.Bounds.W)
			if ly < f.Bounds.Y || ly > f.Bounds.Y+f.Bounds.H || gap < 0 {
				continue
			}
			if gap < bestGap {
				best, bestGap = j, gap
			}
		}
		if best >= 0 {
			f.Name = nodes[best].Name
		}
	}
}

// Filter selects elements: a role (exact, case-insensitive), a substring
// of the name (case-insensitive) and states the element must all have.
type Filter struct {
	Role   string
	Name   string
	States []string
}

// Match reports whether n passes f.
func (f Filter) Match(n *Node) bool {
	if f.Role != "" && !strings.EqualFold(f.Role, n.Role) {
		return false
	}
	if f.Name != "" && !strings.Contains(strings.ToLower(n.Name), strings.ToLower(f.Name)) {
		return false
	}
	for _, s := range f.States {
		if !n.Has(strings.ToLower(s)) {
			return false
		}
	}
	return true
}

// rowText names an unnamed cell (a list's check box) after the first named
// cell to its right on the same row of the same table.
func rowText(nodes []Node, i int) string {
	f := nodes[i]
	best, bestX := "", 1<<30
	for j := range nodes {
		c := nodes[j]
		if j == i || c.Parent != f.Parent || c.Role != "table cell" || c.Name == "" || c.Bounds.Y != f.Bounds.Y {
			continue
		}
		if c.Bounds.X > f.Bounds.X && c.Bounds.X < bestX {
			best, bestX = c.Name, c.Bounds.X
		}
	}
	return best
}
