package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

func pingCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "ping",
		Short: "Check that dvvd answers (exit 3 when it does not)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := context.WithTimeout(e.ctx, e.deadline(nil))
			defer cancel()
			start := time.Now()
			o, err := e.attachOptions()
			if err != nil {
				return e.jsonFailure(err)
			}
			// The ping goes out with the attach: one round trip.
			c, resp, err := client.Ping(ctx, e.socketPath(), o)
			if err != nil {
				return e.jsonFailure(err)
			}
			defer c.Close()
			if !e.human() {
				e.printJSON(resp)
				return nil
			}
			if d := c.Info; d != nil {
				fmt.Fprintf(e.stdout, "dvvd %s (instance %s, pid %d) answered in %v; you are %q with role %s\n",
					d.Version, d.ID, d.PID, time.Since(start).Round(time.Microsecond), d.Attachment, d.Role)
			} else {
				fmt.Fprintln(e.stdout, "dvvd answered")
			}
			return nil
		},
	}
}

// jsonFailure prints a failure as the one JSON object under --json.
func (e *env) jsonFailure(err error) error {
	if we, ok := err.(*wire.Error); ok && e.json {
		e.printJSON(wire.ErrorReply(nil, we))
	}
	return err
}

func eventsCmd(e *env) *cobra.Command {
	var kinds []string
	cmd := &cobra.Command{
		Use:   "events",
		Short: "Print dvvd's events (limb state, resizes, leases, ops) as JSON lines until Ctrl+C",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dialCtx, cancel := context.WithTimeout(e.ctx, e.deadline(nil))
			defer cancel()
			c, err := e.dial(dialCtx)
			if err != nil {
				return e.jsonFailure(err)
			}
			defer c.Close()
			if _, err := c.Subscribe(dialCtx, wire.SubscribeArgs{Events: kinds}); err != nil {
				return e.jsonFailure(err)
			}
			cancel() // the deadline was for setting up; the stream runs until Ctrl+C
			// On stderr, so stdout stays one event a line: a script (or a
			// test) knows from here on nothing is missed.
			fmt.Fprintln(e.stderr, "dvv events: subscribed; Ctrl+C stops")
			for {
				select {
				case ev := <-c.Events():
					e.printJSON(ev)
				case <-c.Done():
					return &wire.Error{Code: wire.DaemonUnavailable, Message: "dvvd closed the event stream (it stopped or restarted)",
						Next: wire.DaemonUnavailable.Info().Next}
				case <-e.ctx.Done():
					return nil
				}
			}
		},
	}
	cmd.Flags().StringSliceVar(&kinds, "kind", nil, "only these kinds: limb.state, limb.resize, lease, op.start, op.end")
	return cmd
}

func shutdownCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "shutdown",
		Short: "Stop dvvd (every limb is closed; leases end)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := request(e, (*client.Client).Shutdown, wire.ShutdownArgs{}); err != nil || !e.human() {
				return err
			}
			fmt.Fprintln(e.stdout, "dvvd is shutting down")
			return nil
		},
	}
}

func versionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print dvv's version, and dvvd's when it answers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := context.WithTimeout(e.ctx, 5*time.Second)
			defer cancel()
			// dvv's own version prints even with no dvvd: that is when
			// people ask for it.
			var daemon *wire.DaemonInfo
			c, dialErr := e.dial(ctx)
			if dialErr == nil {
				daemon = c.Info
				c.Close()
			}
			// "Not running" is the answer only when nothing listens on a
			// local socket; anything else (ssh:// refused, an unsafe
			// socket, a refused token) is said, with its exit status.
			var we *wire.Error
			if dialErr != nil && (e.remote() || !errors.As(dialErr, &we) || we.Code != wire.DaemonUnavailable) {
				if e.human() {
					fmt.Fprintf(e.stdout, "dvv %s (protocol %d)\n", Version, wire.ProtocolVersion)
				}
				return dialErr
			}
			if !e.human() {
				e.printJSON(struct {
					Result   string           `json:"result"`
					Version  string           `json:"version"`
					Protocol int              `json:"protocol"`
					Daemon   *wire.DaemonInfo `json:"daemon,omitempty"`
				}{"version", Version, wire.ProtocolVersion, daemon})
				return nil
			}
			fmt.Fprintf(e.stdout, "dvv %s (protocol %d)\n", Version, wire.ProtocolVersion)
			if daemon != nil {
				fmt.Fprintf(e.stdout, "dvvd %s (protocol %d, instance %s, pid %d)\n", daemon.Version, daemon.Protocol, daemon.ID, daemon.PID)
			} else {
				fmt.Fprintln(e.stdout, "dvvd: not running")
			}
			return nil
		},
	}
}
