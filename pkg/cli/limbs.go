package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// limbTarget is the limb an argument names: a limb id, or GROUP/MEMBER
// (e.g. grp-1/0) for one member of a group.
func limbTarget(arg string) (wire.Target, error) {
	if arg == "" {
		return wire.Target{}, usageErr("a limb id is required (list them with `dvv limbs`)")
	}
	if g, m, ok := strings.Cut(arg, "/"); ok {
		n, err := strconv.Atoi(m)
		if err != nil || n < 0 || g == "" {
			return wire.Target{}, usageErr("%q is not a limb id or GROUP/MEMBER (e.g. grp-1/0)", arg)
		}
		return wire.Target{GroupID: g, Member: &n}, nil
	}
	return wire.Target{LimbID: arg}, nil
}

func intp(v int) *int { return &v }

func limbsCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "limbs",
		Short: "List the limbs this shell sees, and the others dvvd holds (available)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			resp, err := request(e, (*client.Client).Limbs, wire.LimbsArgs{})
			if err != nil || !e.human() {
				return err
			}
			if len(resp.Limbs) == 0 && len(resp.Available) == 0 {
				fmt.Fprintln(e.stdout, "no limbs; open one with `dvv open`")
				return nil
			}
			printLimbTable(e, resp.Limbs)
			if len(resp.Available) > 0 {
				if len(resp.Limbs) > 0 {
					fmt.Fprintln(e.stdout)
				}
				fmt.Fprintln(e.stdout, "available (naming one attaches it):")
				printLimbTable(e, resp.Available)
			}
			return nil
		},
	}
}

func printLimbTable(e *env, limbs []wire.LimbSummary) {
	if len(limbs) == 0 {
		return
	}
	t := newTable(e.stdout, "LIMB", "PROTO", "ENDPOINT", "SLOT", "STATE", "SIZE", "LEASE")
	for _, l := range limbs {
		t.row(l.LimbID, l.Protocol, endpoint(l.Address, l.Port), strconv.Itoa(l.Slot), l.State, sizeText(l.Width, l.Height), leaseText(l.Lease))
	}
	t.flush()
}

// simpleLimbCmd is a command that sends one op for one limb through the
// typed method m; op builds the op's arguments for the limb named.
func simpleLimbCmd[A wire.Args, R any](e *env, use, short string, m method[A, R], op func(wire.Target) (A, error), show func(*R)) *cobra.Command {
	return &cobra.Command{
		Use:   use + " <limbId>",
		Short: short,
		Args:  exactArgs(1, use+" needs a limb id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := limbTarget(args[0])
			if err != nil {
				return err
			}
			req, err := op(target)
			if err != nil {
				return err
			}
			resp, err := request(e, m, req)
			if err != nil || !e.human() {
				return err
			}
			show(resp)
			return nil
		},
	}
}

func closeCmd(e *env) *cobra.Command {
	return simpleLimbCmd(e, "close", "Close a limb and release what it held (closing a gone limb is fine)", (*client.Client).CloseLimb,
		func(t wire.Target) (wire.CloseArgs, error) {
			if t.LimbID == "" { // close names a limb; a group closes with `dvv group close`
				return wire.CloseArgs{}, usageErr("close takes a limb id; close a whole group with `dvv group close GROUP`")
			}
			return wire.CloseArgs{LimbID: t.LimbID}, nil
		},
		func(r *wire.CloseAnswer) { fmt.Fprintf(e.stdout, "closed %s\n", r.LimbID) })
}

func statusCmd(e *env) *cobra.Command {
	return simpleLimbCmd(e, "status", "Show a limb's state, size, generation, coverage, lease and fence (reads no pixels)", (*client.Client).Status,
		func(t wire.Target) (wire.StatusArgs, error) { return wire.StatusArgs{Target: t}, nil },
		func(r *wire.StatusAnswer) {
			if r.Observation != nil {
				printObservation(e.stdout, r.Observation)
			}
		})
}

func signalsCmd(e *env) *cobra.Command {
	return simpleLimbCmd(e, "signals", "Show the session's negotiated signals: live, absent or unknown (with why)", (*client.Client).Signals,
		func(t wire.Target) (wire.SignalsArgs, error) { return wire.SignalsArgs{Target: t}, nil },
		func(r *wire.SignalsAnswer) { printSignals(e.stdout, r.Signals) })
}

func historyCmd(e *env) *cobra.Command {
	return simpleLimbCmd(e, "history", "Show a limb's recent operations (never typed text, pixels or secrets)", (*client.Client).History,
		func(t wire.Target) (wire.HistoryArgs, error) { return wire.HistoryArgs{Target: t}, nil },
		func(r *wire.HistoryAnswer) {
			if len(r.History) == 0 {
				fmt.Fprintln(e.stdout, "no operations yet")
				return
			}
			t := newTable(e.stdout, "SEQ", "STARTED", "OP", "ATTACHMENT", "OUTCOME", "ELAPSED", "DETAIL")
			for _, h := range r.History {
				t.row(strconv.FormatUint(h.Seq, 10), msTime(h.StartedMs), h.Op, h.Attachment, h.Outcome,
					(time.Duration(h.ElapsedMs) * time.Millisecond).String(), orDash(h.Detail))
			}
			t.flush()
		})
}

func reconnectCmd(e *env) *cobra.Command {
	var timeout duration
	cmd := &cobra.Command{
		Use:   "reconnect <limbId>",
		Short: "Drop the connection, dial again and wait for it to come back",
		Args:  exactArgs(1, "reconnect needs a limb id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := limbTarget(args[0])
			if err != nil {
				return err
			}
			req := wire.ReconnectArgs{Target: target}
			if timeout.set {
				req.TimeoutMs = timeout.ms()
			}
			resp, err := request(e, (*client.Client).Reconnect, req)
			if err != nil || !e.human() {
				return err
			}
			fmt.Fprintf(e.stdout, "reconnected %s\n", resp.LimbID)
			if resp.Observation != nil {
				printObservation(e.stdout, resp.Observation)
			}
			return nil
		},
	}
	addDuration(cmd.Flags(), &timeout, "timeout", 20*time.Second, "how long to wait for the limb to come back (dvvd clamps it to 60s)")
	return cmd
}

// exactArgs is cobra.ExactArgs with a message that says what is missing.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErr("%s (got %d arguments; usage: %s)", what, len(args), cmd.UseLine())
		}
		return nil
	}
}

// rangeArgs is cobra.RangeArgs with a message that says what is expected.
func rangeArgs(min, max int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < min || len(args) > max {
			return usageErr("%s (got %d arguments; usage: %s)", what, len(args), cmd.UseLine())
		}
		return nil
	}
}
