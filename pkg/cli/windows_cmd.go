package cli

// This file is not windows.go, which Go would build for Windows only.

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

func windowsCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "windows <limbId>",
		Short: "List a Linux desktop's windows (over its SSH sidecar): id, title, class, pid, bounds, focus, workspace",
		Args:  exactArgs(1, "windows needs a limb id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := limbTarget(args[0])
			if err != nil {
				return err
			}
			r, err := request(e, (*client.Client).Windows, wire.WindowsArgs{Target: target})
			if err != nil || !e.human() || r.Windows == nil {
				return err
			}
			printWindows(e, r.Windows)
			return nil
		},
	}
}

func printWindows(e *env, l *wire.WindowList) {
	t := newTable(e.stdout, "ID", "TITLE", "CLASS", "PID", "FRAME", "CLIENT", "WS", "STATE")
	for _, w := range l.Windows {
		var state []string
		if w.Focused {
			state = append(state, "focused")
		}
		if w.Minimized {
			state = append(state, "minimized")
		}
		ws := strconv.Itoa(w.Workspace)
		if w.Workspace < 0 {
			ws = "all"
		}
		pid := "-"
		if w.PID > 0 {
			pid = strconv.Itoa(w.PID)
		}
		t.row(w.ID, oneLine(w.Title), orDash(w.Class), pid, region(w.Frame), region(w.Client), ws, orDash(strings.Join(state, ",")))
	}
	t.flush()
	if l.Omitted > 0 {
		fmt.Fprintf(e.stderr, "%d more windows, the lowest in the stacking order, left out (a list holds the %d topmost)\n", l.Omitted, len(l.Windows))
	}
	fmt.Fprintf(e.stderr, "display %s, window manager %s, screen %dx%d\n", l.Display, orDash(l.WM), l.Size.W, l.Size.H)
}

func region(r wire.Region) string { return fmt.Sprintf("%d,%d %dx%d", r.X, r.Y, r.W, r.H) }

func windowCmd(e *env) *cobra.Command {
	var timeout duration
	cmd := &cobra.Command{
		Use:   "window <limbId> <window> activate|move X Y|resize W H|close",
		Short: "Activate, move, resize or close a window through the window manager, verified against its state",
		Args:  rangeArgs(3, 5, "window needs a limb id, a window id (from `dvv windows`) and an action"),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := limbTarget(args[0])
			if err != nil {
				return err
			}
			req := wire.WindowArgs{Target: target, Window: args[1], Action: args[2]}
			nums := args[3:]
			want := map[string]int{"activate": 0, "close": 0, "move": 2, "resize": 2}
			n, ok := want[req.Action]
			if !ok {
				return usageErr("unknown window action %q: activate, move X Y, resize W H or close", req.Action)
			}
			if len(nums) != n {
				return usageErr("window %s takes %d numbers, not %d (usage: %s)", req.Action, n, len(nums), cmd.UseLine())
			}
			if n == 2 {
				a, err := coordinate("first number", nums[0])
				if err != nil {
					return err
				}
				b, err := coordinate("second number", nums[1])
				if err != nil {
					return err
				}
				if req.Action == "move" {
					req.X, req.Y = &a, &b
				} else {
					req.Width, req.Height = &a, &b
				}
			}
			if timeout.set {
				req.TimeoutMs = timeout.ms()
			}
			r, err := request(e, (*client.Client).Window, req)
			if err != nil || !e.human() || r.Window == nil {
				return err
			}
			w := r.Window
			switch {
			case w.Verified && w.Window == nil:
				fmt.Fprintf(e.stdout, "%s: done, the window is gone\n", w.Action)
			case w.Verified:
				fmt.Fprintf(e.stdout, "%s: done; %s frame %s client %s\n", w.Action, w.Window.ID, region(w.Window.Frame), region(w.Window.Client))
			default:
				fmt.Fprintf(e.stdout, "%s: not verified: %s\n", w.Action, w.Note)
			}
			return nil
		},
	}
	addDuration(cmd.Flags(), &timeout, "timeout", time.Second, "how long to wait for the window manager to do it (at most 10s)")
	return cmd
}

func workspacesCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "workspaces <limbId> [N]",
		Short: "List the window manager's workspaces, or switch to workspace N (0-based)",
		Args:  rangeArgs(1, 2, "workspaces needs a limb id, and a workspace number to switch to"),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := limbTarget(args[0])
			if err != nil {
				return err
			}
			req := wire.WorkspacesArgs{Target: target, Action: "list"}
			if len(args) == 2 {
				n, err := strconv.Atoi(args[1])
				if err != nil || n < 0 {
					return usageErr("workspace %q is not a number from 0", args[1])
				}
				req.Action, req.N = "switch", &n
			}
			r, err := request(e, (*client.Client).Workspaces, req)
			if err != nil || !e.human() || r.Workspaces == nil {
				return err
			}
			ws := r.Workspaces
			for i := 0; i < ws.Count; i++ {
				mark, name := " ", ""
				if i == ws.Current {
					mark = "*"
				}
				if i < len(ws.Names) {
					name = ws.Names[i]
				}
				fmt.Fprintf(e.stdout, "%s %d %s\n", mark, i, name)
			}
			if req.Action == "switch" && !ws.Verified {
				fmt.Fprintf(e.stderr, "not verified: the window manager still shows workspace %d\n", ws.Current)
			}
			return nil
		},
	}
}
