package cli

import (
	"io"
	"net"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/client"
)

// stdioProxyCmd is what `--socket ssh://host` runs on the far side: it
// joins its stdin and stdout to this user's dvvd socket, byte for byte,
// after the same socket checks every client makes.
func stdioProxyCmd(e *env) *cobra.Command {
	var id string
	cmd := &cobra.Command{
		Use:   "stdio-proxy",
		Short: "Join stdin and stdout to dvvd's socket (what --socket ssh://HOST runs on HOST)",
		Long: "Connect stdin and stdout to this user's dvvd socket (--id names the instance; --socket or\n" +
			"$DVV_SOCKET a path) and copy bytes both ways until either side ends. `dvv --socket\n" +
			"ssh://user@host/id …` and `dvvmcp --socket ssh://…` run `ssh user@host dvv stdio-proxy --id id`.",
		Example: "  ssh lab dvv stdio-proxy <<< '{\"op\":\"ping\"}'",
		Args:    exactArgs(0, "stdio-proxy takes no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := client.SocketPath(id)
			if e.socket != "" || e.getenv("DVV_SOCKET") != "" {
				path = e.socketPath()
			}
			if client.IsRemote(path) {
				return usageErr("stdio-proxy serves a local socket; %s names another machine", path)
			}
			conn, err := client.DialSocket(e.ctx, path)
			if err != nil {
				return err
			}
			defer conn.Close()
			go func() {
				io.Copy(conn, e.stdin)
				if uc, ok := conn.(*net.UnixConn); ok {
					uc.CloseWrite() // dvvd answers what it read, then ends
				}
			}()
			io.Copy(e.dataOut(), conn)
			return nil
		},
	}
	cmd.Flags().StringVar(&id, "id", "default", "the dvvd instance whose socket to join")
	return cmd
}
