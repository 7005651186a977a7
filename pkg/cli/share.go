package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

func shareCmd(e *env) *cobra.Command {
	var viewOnly, tcp, stop bool
	var port int
	c := &cobra.Command{
		Use:   "share <limbId>",
		Short: "Serve a desktop limb to any VNC viewer (input from the viewer takes the limb over)",
		Long: "dvvd serves the limb's framebuffer mirror as an RFB server, without a second connection to the\n" +
			"machine: on two Unix sockets only you can open (interactive and view-only) and, with --tcp, on a\n" +
			"127.0.0.1 port guarded by a one-time VNC password (good for one viewer connection, 10 minutes);\n" +
			"--port fixes that port (it stays until the share stops). After 5 wrong passwords in a row from one\n" +
			"local user the port refuses that user's viewers for 10 s, twice as long at each new block (up to 5\n" +
			"minutes); another user's guesses never block yours.\n" +
			"A viewer's first input takes the limb over as a person (the agent's next act answers LEASE_REVOKED);\n" +
			"closing the last driving viewer, or `dvv control handback`, hands it back.",
		Args: exactArgs(1, "share needs a limb id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := limbTarget(args[0])
			if err != nil {
				return err
			}
			req := wire.ShareArgs{Target: target}
			req.ViewOnly, req.TCP = viewOnly, tcp
			if cmd.Flags().Changed("port") {
				if port < 1 || port > 65535 {
					return usageErr("--port %d is not a TCP port: give 1 to 65535", port)
				}
				req.Port, req.TCP = &port, true
			}
			// --stop with another flag is most likely a typo for a start;
			// refusing it is safer than silently stopping every viewer.
			if stop {
				if viewOnly || req.TCP {
					return usageErr("--stop takes no other flag")
				}
				req.Action = "stop"
			}
			resp, err := request(e, (*client.Client).Share, req)
			if err != nil || !e.human() {
				return err
			}
			fmt.Fprintln(e.stdout, resp.Dispatched)
			if s := resp.Share; s != nil {
				// Both sockets exist either way; print the one asked for, so a
				// pasted command cannot drive when watching was meant.
				sock := s.Socket
				if viewOnly {
					sock = s.ViewSocket
				}
				fmt.Fprintf(e.stdout, "unix socket: %s\n  vncviewer %s\n", sock, sock)
				if s.TCP != "" {
					mode := "interactive"
					if s.ViewOnly {
						mode = "view-only"
					}
					fmt.Fprintf(e.stdout, "tcp: %s (%s)\n  one-time password: %s (one connection, until %s)\n  vncviewer %s   # type the password when asked\n",
						s.TCP, mode, s.Password, time.UnixMilli(s.ExpiresMs).Format("15:04:05"), s.TCP)
				}
				fmt.Fprintf(e.stdout, "viewers connected: %d\n", s.Viewers)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&viewOnly, "view-only", false, "print the view-only socket; with --tcp the password only lets the viewer watch")
	c.Flags().BoolVar(&tcp, "tcp", false, "also listen on 127.0.0.1 and issue a one-time password")
	c.Flags().IntVar(&port, "port", 0, "with --tcp (which it implies): listen on this 127.0.0.1 port instead of a free one; fixed until the share stops")
	c.Flags().BoolVar(&stop, "stop", false, "stop sharing and disconnect every viewer")
	return c
}

func handbackCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "handback <limbId>",
		Short: "End a person's hold (takeover, VNC viewer or browser): agents may acquire the lease again",
		Args:  exactArgs(1, "control handback needs a limb id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := limbTarget(args[0])
			if err != nil {
				return err
			}
			req := wire.HandbackArgs{Target: target}
			resp, err := request(e, (*client.Client).Handback, req)
			if err != nil || !e.human() {
				return err
			}
			printLease(e, resp.Dispatched, resp.Lease)
			return nil
		},
	}
}

func pauseCmd(e *env, action string) *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use:   action + " [limbId]",
		Short: "Pause agent input on a limb or on every limb (--all): acts answer LEASE_REVOKED until resumed",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := wire.PauseArgs{Action: action, All: all}
			if len(args) == 1 {
				target, err := limbTarget(args[0])
				if err != nil {
					return err
				}
				req.Target = target
			}
			// A bare `dvv pause` could mean "everything"; pausing every limb
			// stops every agent, so it must be asked for with --all.
			if action == "pause" && len(args) == 0 && !all {
				return usageErr("pause needs a limb id, or --all for every limb")
			}
			resp, err := request(e, (*client.Client).Pause, req)
			if err != nil || !e.human() {
				return err
			}
			fmt.Fprintln(e.stdout, resp.Dispatched)
			if p := resp.Paused; p != nil {
				switch {
				case p.All:
					fmt.Fprintln(e.stdout, "paused: every limb")
				case len(p.Limbs) > 0:
					fmt.Fprintln(e.stdout, "paused:", p.Limbs)
				default:
					fmt.Fprintln(e.stdout, "paused: none")
				}
			}
			return nil
		},
	}
	if action == "resume" {
		c.Short = "Resume agent input on a limb, or everywhere when no limb is named"
		c.Long = "Resume agent input on a limb, or everywhere when no limb is named.\n\n" +
			"A pause takes no lease away: an agent that held a limb's lease when it was paused, and is still\n" +
			"attached (its dvvmcp connected, its shell session alive), holds it again at once and its next\n" +
			"act goes through with no `dvv control acquire`. A lease whose holder went away meanwhile was\n" +
			"released then, and must be acquired again."
	} else {
		c.Flags().BoolVar(&all, "all", false, "every limb, including limbs opened later")
	}
	return c
}
