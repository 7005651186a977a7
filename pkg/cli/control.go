package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

func controlCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "control",
		Short: "Acquire, release or read a limb's control lease; take over as a person",
		Long: "Acting on a limb (click, type, key, clipboard set, terminal input) needs its control lease.\n" +
			"The lease belongs to this shell's session, so it holds across the dvv commands typed in it.",
	}
	asGroup(cmd)
	// One sub-command per action of the op table, in the order help lists
	// them; TestControlActionsAreTheOps fails when the two sets differ.
	for _, a := range []struct{ action, short string }{
		{"acquire", "Take the lease (--wait 10s to wait for another agent to release it)"},
		{"release", "Give the lease back"},
		{"yield", "Give the lease back, recording --reason"},
		{"status", "Show who holds the lease, and whether a person took over (the check after LEASE_REVOKED)"},
		{"yield_status", "The same as status (the op's other name for it)"},
	} {
		c := controlActionCmd(e, a.action, a.short)
		// status and yield_status answer the same: help shows one.
		c.Hidden = a.action == "yield_status"
		cmd.AddCommand(c)
	}
	cmd.AddCommand(takeoverCmd(e), handbackCmd(e))
	return cmd
}

func controlActionCmd(e *env, action, short string) *cobra.Command {
	var reason string
	var wait duration
	// Sub-commands are spelled with dashes; the op's action keeps its
	// underscore, which stays a hidden alias.
	name := strings.ReplaceAll(action, "_", "-")
	c := &cobra.Command{
		Use:   name + " <limbId>",
		Short: short,
		Args:  exactArgs(1, "control "+name+" needs a limb id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := limbTarget(args[0])
			if err != nil {
				return err
			}
			req := wire.ControlArgs{Target: target}
			req.Action, req.Reason = action, reason
			if wait.set {
				req.WaitMs = wait.ms()
			}
			resp, err := request(e, (*client.Client).Control, req)
			if err != nil || !e.human() {
				return err
			}
			printLease(e, resp.Dispatched, resp.Lease)
			return nil
		},
	}
	c.Flags().StringVar(&reason, "reason", "", "shown to the person on acquire, recorded on yield")
	if opField(wire.OpControl, "waitMs").Applies(action) {
		addDuration(c.Flags(), &wait, "wait", 0, "wait this long for the lease (default 0s: fail at once)")
	}
	if name != action {
		c.Aliases = []string{action}
	}
	return c
}

func takeoverCmd(e *env) *cobra.Command {
	var reason string
	c := &cobra.Command{
		Use:   "takeover <limbId>",
		Short: "Take control as a person: an agent's lease is revoked and its input refused",
		Args:  exactArgs(1, "control takeover needs a limb id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := limbTarget(args[0])
			if err != nil {
				return err
			}
			req := wire.TakeoverArgs{Target: target}
			req.Reason = reason
			resp, err := request(e, (*client.Client).Takeover, req)
			if err != nil || !e.human() {
				return err
			}
			printLease(e, resp.Dispatched, resp.Lease)
			return nil
		},
	}
	c.Flags().StringVar(&reason, "reason", "", "why (shown to the agent whose lease is revoked)")
	return c
}

func printLease(e *env, dispatched string, lease *wire.Lease) {
	if dispatched != "" {
		fmt.Fprintln(e.stdout, dispatched)
	}
	if lease != nil {
		line := "lease: " + leaseText(*lease)
		if lease.Reason != "" {
			line += " — " + lease.Reason
		}
		fmt.Fprintln(e.stdout, oneLine(line)) // the holder and reason are another client's words
		if lease.HumanTookOver {
			fmt.Fprintln(e.stdout, "human_took_over: true")
		}
	}
}
