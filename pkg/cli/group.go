package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/localfile"
	"github.com/dvvhq/dvv/pkg/wire"
)

func groupCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "group",
		Short: "Open many limbs as a group and act on all of them at once",
		Long: "A group addresses many limbs together (group run) or one at a time: any limb command takes\n" +
			"GROUP/MEMBER in place of a limb id (e.g. dvv status grp-1/0).",
	}
	asGroup(cmd)
	cmd.AddCommand(groupOpenCmd(e, "open"), groupLsCmd(e), groupOpenCmd(e, "grow"), groupShrinkCmd(e),
		groupCloseCmd(e), groupRunCmd(e))
	return cmd
}

type groupMembers struct {
	addresses []string
	hostIDs   []string
	protocol  string
	perceive  bool
}

// args checks the member flags and carries them as group_open's
// arguments (group_grow takes the same ones beside its group id).
func (m *groupMembers) args() (wire.GroupOpenArgs, error) {
	if len(m.addresses) == 0 && len(m.hostIDs) == 0 {
		return wire.GroupOpenArgs{}, usageErr("name members with --address HOST:PORT and/or --host-id ID (each repeatable)")
	}
	if len(m.addresses) > 0 && m.protocol == "" {
		return wire.GroupOpenArgs{}, usageErr("--address members need --protocol %s", strings.Join(wire.ProtocolNames(), "|"))
	}
	for _, a := range m.addresses {
		// Refused before anything echoes or sends a malformed address.
		if _, err := hosts.ParseAddress(m.protocol, a); err != nil {
			return wire.GroupOpenArgs{}, err
		}
	}
	a := wire.GroupOpenArgs{Addresses: m.addresses, HostIDs: m.hostIDs, Protocol: m.protocol}
	if m.perceive {
		a.Perceive = &m.perceive
	}
	return a, nil
}

// groupOpenCmd is `group open` and `group grow <gid>`: both take members.
func groupOpenCmd(e *env, verb string) *cobra.Command {
	var m groupMembers
	use, short, nargs := "open", "Open a group of limbs (if any member fails, the ones opened are closed again)", 0
	if verb == "grow" {
		use, short, nargs = "grow <groupId>", "Open more limbs and append them to a group", 1
	}
	cmd := &cobra.Command{
		Use:     use,
		Short:   short,
		Example: "  dvv group " + verb + strings.Repeat(" grp-1", nargs) + " --address 127.0.0.1:5951 --address 127.0.0.1:5952 --protocol vnc --perceive",
		Args:    exactArgs(nargs, "group "+verb+" takes "+strconv.Itoa(nargs)+" arguments besides flags"),
		RunE: func(cmd *cobra.Command, args []string) error {
			members, err := m.args()
			if err != nil {
				return err
			}
			var group *wire.Group
			if nargs == 1 {
				resp, err := request(e, (*client.Client).GroupGrow, wire.GroupGrowArgs{GroupID: args[0], HostIDs: members.HostIDs,
					Addresses: members.Addresses, Protocol: members.Protocol, Perceive: members.Perceive})
				if err != nil || !e.human() {
					return err
				}
				group = resp.Group
			} else {
				resp, err := request(e, (*client.Client).GroupOpen, members)
				if err != nil || !e.human() {
					return err
				}
				group = resp.Group
			}
			printGroup(e, group)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&m.addresses, "address", nil, "an endpoint HOST[:PORT], for SSH USER@HOST[:PORT] (repeatable)")
	f.StringArrayVar(&m.hostIDs, "host-id", nil, "a saved host id or name (repeatable)")
	f.StringVar(&m.protocol, "protocol", "", wire.ProtocolChoice()+" (required with --address)")
	f.BoolVar(&m.perceive, "perceive", false, "keep a framebuffer mirror for every member")
	return cmd
}

func printGroup(e *env, g *wire.Group) {
	if g == nil {
		return
	}
	fmt.Fprintf(e.stdout, "%s (%d members)\n", g.GroupID, g.Size)
	if len(g.Members) == 0 {
		return
	}
	t := newTable(e.stdout, "MEMBER", "LIMB", "HOST", "STATE")
	for _, m := range g.Members {
		t.row(strconv.Itoa(m.Index), m.LimbID, m.Host, m.State)
	}
	t.flush()
}

func groupLsCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "ls [groupId]",
		Short: "List open groups, or one group's members",
		Args:  rangeArgs(0, 1, "group ls takes at most a group id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := wire.GroupListArgs{}
			if len(args) == 1 {
				req.GroupID = args[0]
			}
			resp, err := request(e, (*client.Client).GroupList, req)
			if err != nil || !e.human() {
				return err
			}
			if resp.Group != nil {
				printGroup(e, resp.Group)
				return nil
			}
			if len(resp.Groups) == 0 {
				fmt.Fprintln(e.stdout, "no groups")
				return nil
			}
			t := newTable(e.stdout, "GROUP", "SIZE")
			for _, g := range resp.Groups {
				t.row(g.GroupID, strconv.Itoa(g.Size))
			}
			t.flush()
			return nil
		},
	}
}

func groupShrinkCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "shrink <groupId> <n>",
		Short: "Close the n most recently added members (fails, never clamps, when n is too large)",
		Args:  exactArgs(2, "group shrink needs a group id and n"),
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := strconv.Atoi(args[1])
			if err != nil || n < 1 { // 0 would be a no-op that looks like success

				return usageErr("n %q must be a whole number, 1 or more", args[1])
			}
			resp, err := request(e, (*client.Client).GroupShrink, wire.GroupShrinkArgs{GroupID: args[0], N: n})
			if err != nil || !e.human() {
				return err
			}
			printGroup(e, resp.Group)
			return nil
		},
	}
}

func groupCloseCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "close <groupId>",
		Short: "Close every member and forget the group",
		Args:  exactArgs(1, "group close needs a group id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := request(e, (*client.Client).GroupClose, wire.GroupCloseArgs{GroupID: args[0]}); err != nil || !e.human() {
				return err
			}
			fmt.Fprintf(e.stdout, "closed %s\n", args[0])
			return nil
		},
	}
}

func groupRunCmd(e *env) *cobra.Command {
	var argsJSON, outDir string
	cmd := &cobra.Command{
		Use:   "run <groupId> <action>",
		Short: "Run one action on every member at once (" + strings.Join(variants(wire.OpGroupRun), ", ") + ")",
		Long: "Run one action on every member concurrently; --args carries that action's tool arguments as\n" +
			"a JSON object (minus limbId/groupId/member). screen writes one image per member into --out-dir\n" +
			"(default the current directory), named NNN-LIMB.png; dvv writes them itself. One line per member\n" +
			"follows; the exit status\n" +
			"is 0 when every member succeeded, else the class of the first failing member.",
		Example: "  dvv group run grp-1 screen --out-dir ./shots --args '{\"scale\":0.5}'\n" +
			"  dvv group run grp-1 wait --args '{\"until\":\"connected\"}'",
		Args: exactArgs(2, "group run needs a group id and an action"),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := groupRunRequest(args[0], args[1], argsJSON, outDir, cmd.Flags().Changed("out-dir"))
			if err != nil {
				return err
			}
			if req.OutDir != "" {
				// dvv writes the images itself (client.Options.InlineFiles):
				// the directory is made, or checked to be this user's, first.
				if err := localfile.OwnDir(req.OutDir); err != nil {
					return localErr(wire.BadRequest, "--out-dir: %v", err)
				}
			}
			resp, err := request(e, (*client.Client).GroupRun, req)
			if err != nil {
				return err
			}
			if e.human() {
				printMembers(e, resp.Members)
			}
			for _, m := range resp.Members {
				if r, err := m.Reply(); err == nil {
					if we := r.Err(); we != nil {
						return &exitStatus{code: we.Exit(), msg: fmt.Sprintf("member %d (%s) failed: %s", m.Index, m.LimbID, we.Code)}
					}
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&argsJSON, "args", "", "the action's arguments as a JSON object")
	cmd.Flags().StringVar(&outDir, "out-dir", ".", "screen: the directory dvv writes the images into")
	return cmd
}

// groupRunRequest builds group run. --args is checked to be a JSON object
// here and passed on as written: each member's op decodes it, so its
// fields are judged once, by dvvd, as for a single limb.
func groupRunRequest(gid, action, argsJSON, outDir string, outSet bool) (wire.GroupRunArgs, error) {
	req := wire.GroupRunArgs{GroupID: gid, Action: action}
	if argsJSON != "" {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(argsJSON), &obj); err != nil {
			return wire.GroupRunArgs{}, usageErr("--args must be a JSON object: %v", err)
		}
		req.Arguments = json.RawMessage(argsJSON)
	}
	if action == "screen" {
		abs, err := filepath.Abs(outDir)
		if err != nil {
			return wire.GroupRunArgs{}, localErr(wire.BadRequest, "cannot make %q absolute: %v", outDir, err)
		}
		req.OutDir = abs
	} else if outSet {
		return wire.GroupRunArgs{}, usageErr("--out-dir is for the screen action only")
	}
	return req, nil
}

// printMembers is group run's answer, one line per member in member order,
// so a failing member is found by its index.
func printMembers(e *env, members []wire.MemberResult) {
	t := newTable(e.stdout, "MEMBER", "LIMB", "RESULT")
	for _, m := range members {
		t.row(strconv.Itoa(m.Index), m.LimbID, memberSummary(m))
	}
	t.flush()
}

// memberSummary is one member's answer in a line. Each member's op is
// known only from its line, so it is read as that op's answer.
func memberSummary(m wire.MemberResult) string {
	line, err := m.Reply()
	if err != nil {
		return "no answer"
	}
	if we := line.Err(); we != nil {
		return fmt.Sprintf("%s: %s", we.Code, we.Message)
	}
	ans, err := wire.AnswerOf(line)
	if err != nil {
		return line.Result + " (its answer could not be read)"
	}
	var r memberFacts
	switch a := ans.(type) {
	case *wire.ScreenAnswer:
		r.Screen, r.Observation = a.Screen, a.Observation
	case *wire.WaitAnswer:
		r.Wait, r.Observation = a.Wait, a.Observation
	case *wire.RunAnswer:
		r.Run = a.Run
	case *wire.ClickAnswer:
		r.Dispatched = a.Dispatched
	case *wire.TypeAnswer:
		r.Dispatched = a.Dispatched
	case *wire.KeyAnswer:
		r.Dispatched = a.Dispatched
	case *wire.StatusAnswer:
		r.Observation = a.Observation
	case *wire.SignalsAnswer:
		r.Signals = a.Signals
	}
	return r.summary(line.Result)
}

// memberFacts is what a member's summary says, from whichever of the
// actions group_run runs it answered.
type memberFacts struct {
	Screen      *wire.Screen
	Wait        *wire.WaitResult
	Run         *wire.RunResult
	Dispatched  string
	Observation *wire.Observation
	Signals     wire.Signals
}

// summary is the member's line; result when none of the facts is there.
func (r memberFacts) summary(result string) string {
	switch {
	case r.Screen != nil && r.Screen.Path != "":
		return r.Screen.Path + " — " + r.Screen.ImageSpaceLine
	case r.Screen != nil:
		return r.Screen.ImageSpaceLine
	case r.Wait != nil:
		if r.Wait.Settled {
			return fmt.Sprintf("settled after %d ms: %s", r.Wait.ElapsedMs, r.Wait.Detail)
		}
		return fmt.Sprintf("not settled after %d ms", r.Wait.ElapsedMs)
	case r.Run != nil:
		s := "no exit status"
		if r.Run.ExitCode != nil {
			s = "exit " + strconv.Itoa(*r.Run.ExitCode)
		}
		out := strings.TrimSpace(r.Run.Stdout)
		if i := strings.IndexByte(out, '\n'); i >= 0 {
			out = out[:i] + " …"
		}
		return s + ": " + out
	case r.Dispatched != "":
		return r.Dispatched
	case r.Observation != nil:
		o := r.Observation
		return fmt.Sprintf("%s %s gen %d, lease %s", o.State, sizeText(o.Size.W, o.Size.H), o.Geometry.Generation, leaseText(o.Lease))
	case r.Signals != nil:
		return fmt.Sprintf("%d signals", len(r.Signals))
	}
	return result
}
