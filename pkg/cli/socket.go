package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

// socketCmd prints the socket dvv would use, so scripts that speak the
// protocol themselves find the same dvvd: the path moves with --socket,
// $DVV_SOCKET and $XDG_RUNTIME_DIR.
func socketCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "socket",
		Short: "Print the control socket dvv would use (for nc -U and other raw clients)",
		Long: "Print the path of dvvd's control socket as dvv resolves it: --socket, else $DVV_SOCKET, else\n" +
			"$XDG_RUNTIME_DIR/dvv/default.sock, else /tmp/dvv<uid>/default.sock. It does not ask dvvd whether\n" +
			"it is there (dvv ping does). An ssh:// socket is printed as given.",
		Example: "  printf '{\"op\":\"ping\"}\\n' | nc -NU \"$(dvv socket)\"",
		Args:    exactArgs(0, "socket takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintln(e.stdout, e.socketPath())
			return nil
		},
	}
}
