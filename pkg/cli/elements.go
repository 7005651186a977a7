package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

func inspectCmd(e *env) *cobra.Command {
	var window, role, name string
	var states []string
	cmd := &cobra.Command{
		Use:   "inspect <limbId>",
		Short: "List a desktop's accessibility elements (role, name, states, bounds, id), read over its SSH sidecar",
		Long: "Read the accessibility tree (AT-SPI) of the Linux X11 session behind a desktop limb, reached over\n" +
			"its SSH sidecar, and print each element: its id, role, name, states and bounds in framebuffer\n" +
			"pixels (the coordinates click takes). Ids expire when their window moves or its layout changes;\n" +
			"a password field's text is never shown. See docs/structure.md.",
		Example: "  dvv inspect vnc-1a2b3c4d\n  dvv inspect vnc-1a2b3c4d --window Settings --role 'push button' --name ok\n" +
			"  dvv inspect vnc-1a2b3c4d --role text --state focusable --json",
		Args: exactArgs(1, "inspect needs a limb id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := limbTarget(args[0])
			if err != nil {
				return err
			}
			a := wire.InspectArgs{Target: target, Window: window, Role: role, NameContains: name, States: states}
			ans, err := request(e, (*client.Client).Inspect, a)
			if err != nil || !e.human() || ans.Inspect == nil {
				return err
			}
			for _, w := range ans.Inspect.Windows {
				fmt.Fprintf(e.stdout, "window %s  %q  %s  %d,%d %dx%d\n", w.ID, w.Title, w.App, w.Bounds.X, w.Bounds.Y, w.Bounds.W, w.Bounds.H)
			}
			for _, el := range ans.Inspect.Elements {
				fmt.Fprintln(e.stdout, elementLine(el))
			}
			if ans.Inspect.Truncated {
				fmt.Fprintln(e.stderr, "dvv: the walk stopped at its bound; narrow it with --window, --role or --name")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&window, "window", "", "a window id from an earlier inspect, or part of its title")
	cmd.Flags().StringVar(&role, "role", "", "only elements of this role (e.g. 'push button', text, 'check box')")
	cmd.Flags().StringVar(&name, "name", "", "only elements whose name holds this (case ignored)")
	cmd.Flags().StringSliceVar(&states, "state", nil, "only elements in this state (repeat for several: focusable, checked, …)")
	return cmd
}

// elementLine is one element for people.
func elementLine(el wire.Element) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s  %s %q  %d,%d %dx%d", strings.Repeat("  ", el.Depth), el.ID, el.Role, el.Name, el.Bounds.X, el.Bounds.Y, el.Bounds.W, el.Bounds.H)
	if len(el.States) > 0 {
		fmt.Fprintf(&b, "  [%s]", strings.Join(el.States, " "))
	}
	if len(el.Actions) > 0 {
		fmt.Fprintf(&b, "  actions: %s", strings.Join(el.Actions, ", "))
	}
	if el.Protected {
		b.WriteString("  (protected)")
	} else if el.Text != "" && el.Text != el.Name {
		fmt.Fprintf(&b, "  text %q", el.Text)
	}
	if el.Value != nil {
		fmt.Fprintf(&b, "  value %g (%g..%g)", el.Value.Current, el.Value.Min, el.Value.Max)
	}
	return b.String()
}

func elementCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "element <limbId> <elementId> focus|set-text TEXT|insert TEXT|invoke [ACTION]|toggle [on|off]|select|value V|expand|collapse|read|locate",
		Short: "Act on an accessibility element by its id from inspect, verified by what is read back",
		Long: "Act on one element an inspect listed: the id is refused (STALE_ELEMENT) when its window moved or\n" +
			"its layout changed since. set-text and insert are read back exactly (a password field: its length\n" +
			"only, never its text); toggle, select, value, expand and focus read the state back. The answer says\n" +
			"verified only for what it read back; invoke has nothing to read back. locate only checks the id and\n" +
			"prints the element's bounds and center (what `dvv click L --element ID` clicks).",
		Example: "  dvv element vnc-1a2b3c4d ID set-text 'Ada Lovelace'\n  dvv element vnc-1a2b3c4d ID toggle on\n" +
			"  dvv element vnc-1a2b3c4d ID invoke\n  dvv element vnc-1a2b3c4d ID value 30 --json",
		Args: rangeArgs(3, 4, "element needs a limb id, an element id and an act"),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := limbTarget(args[0])
			if err != nil {
				return err
			}
			a := wire.ElementArgs{Target: target, Element: args[1], Action: args[2]}
			extra := ""
			if len(args) == 4 {
				extra = args[3]
			}
			switch a.Action {
			case "set-text", "insert":
				if len(args) != 4 {
					return &usageError{msg: fmt.Sprintf("element %s needs the text", a.Action)}
				}
				a.Text = &extra
			case "invoke":
				a.Invoke = extra
			case "toggle":
				if extra != "" && extra != "on" && extra != "off" {
					return &usageError{msg: "toggle takes on or off (or nothing: the other way)"}
				}
				a.State = extra
			case "value":
				v, err := strconv.ParseFloat(extra, 64)
				if err != nil {
					return &usageError{msg: "element value needs a number"}
				}
				a.Value = &v
			case "focus", "select", "expand", "collapse", "read", "locate":
				if len(args) == 4 {
					return &usageError{msg: fmt.Sprintf("element %s takes nothing more", a.Action)}
				}
			default:
				return &usageError{msg: fmt.Sprintf("unknown act %q: focus, set-text, insert, invoke, toggle, select, value, expand, collapse, read or locate", a.Action)}
			}
			ans, err := request(e, (*client.Client).Element, a)
			if err != nil || !e.human() || ans.Element == nil {
				return err
			}
			r := ans.Element
			v := "not verified"
			if r.Verified {
				v = "verified"
			}
			fmt.Fprintf(e.stdout, "%s: %s\n", v, r.Detail)
			if a.Action == "read" || r.Text != "" {
				fmt.Fprintf(e.stdout, "text %q\n", r.Text)
			}
			if r.Value != nil {
				fmt.Fprintf(e.stdout, "value %g (%g..%g)\n", r.Value.Current, r.Value.Min, r.Value.Max)
			}
			fmt.Fprintln(e.stdout, elementLine(r.Element))
			return nil
		},
	}
	return cmd
}

// elementSearch is wait's accessibility flags: inspect's search for
// --until element/element-gone, an element id for text-equals/contains.
type elementSearch struct {
	role, name, element string
	states              []string
}

func (s *elementSearch) flags(f *pflag.FlagSet) {
	f.StringVar(&s.role, "role", "", "--until element/element-gone: the element's role")
	f.StringVar(&s.name, "name", "", "--until element/element-gone: part of the element's name")
	f.StringSliceVar(&s.states, "state", nil, "--until element/element-gone: a state the element has (repeat for several)")
	f.StringVar(&s.element, "element", "", "--until text-equals/text-contains: the element id (from inspect) whose text to watch")
}

// locateElement checks an element id in dvvd and answers where the element
// is now, without printing: click --element clicks its center.
func (e *env) locateElement(target wire.Target, id string) (*wire.ElementResult, error) {
	a := wire.ElementArgs{Target: target, Element: id, Action: "locate"}
	ans, err := quiet(e, (*client.Client).Element, a)
	if err != nil {
		return nil, err
	}
	if ans == nil || ans.Element == nil {
		return nil, wire.Errorf(wire.Internal, "dvvd answered element locate without the element")
	}
	return ans.Element, nil
}
