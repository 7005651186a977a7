package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

func tokenCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Create, list and revoke policy tokens (DVV_TOKEN) for agents and scripts",
	}
	asGroup(cmd)
	var role, label string
	var caps []string
	create := &cobra.Command{
		Use:   "create --role observer|operator|owner [--cap C …] [--label L]",
		Short: "Create a token and print its secret once (stdout); its id goes to stderr",
		Long: "Create a token for a role, plus capabilities named with --cap (exec and local.files are in no\n" +
			"role and must be named). The secret is printed once, on stdout, and is not kept by dvvd: give\n" +
			"it to the agent as DVV_TOKEN.",
		Example: "  DVV_TOKEN=$(dvv token create --role operator --cap exec --label ci)",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if role == "" {
				return usageErr("token create needs --role observer|operator|owner")
			}
			// --cap a,b and --cap a --cap b both work; blanks from a trailing
			// comma are dropped rather than sent as an unknown capability.
			var list []string
			for _, c := range caps {
				if c = strings.TrimSpace(c); c != "" {
					list = append(list, c)
				}
			}
			resp, err := request(e, (*client.Client).TokenCreate, wire.TokenCreateArgs{Envelope: wire.Envelope{Name: label}, Role: role, Caps: list}) // the label is the envelope's name (docs/protocol.md)
			if err != nil || !e.human() {
				return err
			}
			// The secret alone on stdout, so TOKEN=$(dvv token create …)
			// captures exactly it; everything else goes to stderr.
			fmt.Fprintln(e.stdout, resp.Token)
			for _, t := range resp.Tokens {
				fmt.Fprintf(e.stderr, "token %s (role %s, extra caps %s); the secret above is shown only now\n", t.ID, t.Role, orDash(strings.Join(t.Caps, ",")))
			}
			return nil
		},
	}
	create.Flags().StringVar(&role, "role", "", "observer, operator or owner")
	create.Flags().StringSliceVar(&caps, "cap", nil, "an extra capability (repeatable, or comma separated)")
	create.Flags().StringVar(&label, "label", "", "a label to recognise the token by")

	ls := &cobra.Command{
		Use:   "ls",
		Short: "List tokens (never their secrets)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			resp, err := request(e, (*client.Client).TokenList, wire.TokenListArgs{})
			if err != nil || !e.human() {
				return err
			}
			if len(resp.Tokens) == 0 {
				fmt.Fprintln(e.stdout, "no tokens")
				return nil
			}
			t := newTable(e.stdout, "ID", "ROLE", "CREATED", "LABEL", "CAPABILITIES")
			for _, tk := range resp.Tokens {
				t.row(tk.ID, tk.Role, msTime(tk.Created), orDash(tk.Label), strings.Join(tk.Caps, ","))
			}
			t.flush()
			return nil
		},
	}
	revoke := &cobra.Command{
		Use:   "revoke <id>",
		Short: "Revoke a token: attachments using it are refused from their next request",
		Args:  exactArgs(1, "token revoke needs a token id (see `dvv token ls`)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := request(e, (*client.Client).TokenRevoke, wire.TokenRevokeArgs{TokenID: args[0]}); err != nil || !e.human() {
				return err
			}
			fmt.Fprintf(e.stdout, "revoked %s\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(create, ls, revoke)
	return cmd
}
