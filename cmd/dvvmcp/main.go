// Command dvvmcp is dvv's MCP server on stdio: it exposes the 25 dvv tools
// and forwards each call to dvvd's control socket.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/mcp"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) int {
	var socket, name, toolSets string
	var jpeg, genDocs, listTools bool
	budget := mcp.DefaultImageBudget
	var manDir string
	code := 0
	root := &cobra.Command{
		Use:   "dvvmcp",
		Short: "dvv's MCP server on stdio",
		Long: fmt.Sprintf("Speaks MCP on stdin/stdout and forwards the %d dvv tools to dvvd.\n"+
			"Environment: DVV_SOCKET (socket path or ssh://[user@]host[:port][/id]), DVV_TOKEN (policy token),\n"+
			"DVV_MCP_IMAGE=jpeg, DVV_MCP_TOOLS=SET[,SET...] (more tools: --tools).", mcp.ToolCount),
		Version:       mcp.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unexpected arguments %q; it takes only flags", strings.Join(args, " "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if manDir != "" {
				return writeMan(cmd, manDir)
			}
			if genDocs {
				if err := mcp.WriteToolsDoc(stdout); err != nil {
					fmt.Fprintln(stderr, "dvvmcp:", err)
					code = 1
				}
				return nil
			}
			sets, err := mcp.ParseSets(toolSets)
			if err != nil {
				return err
			}
			if listTools {
				for _, t := range mcp.Served(sets) {
					set := t.Set
					if set == "" {
						set = "reference"
					}
					fmt.Fprintf(stdout, "%s\t%s\n", t.Name, set)
				}
				return nil
			}
			token, tokenErr := client.TokenFromEnv(os.LookupEnv)
			code = serve(stdin, stdout, stderr, mcp.Options{Socket: socket, Token: token, TokenErr: tokenErr, JPEG: jpeg, DefaultName: name,
				Image: noZero(budget), Sets: sets})
			return nil
		},
	}
	root.SetVersionTemplate("dvvmcp {{.Version}}\n")
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.CompletionOptions.DisableDefaultCmd = true
	f := root.Flags()
	f.StringVar(&socket, "socket", "", "dvvd's control socket: a path or ssh://[user@]host[:port][/id] (default $DVV_SOCKET, else $XDG_RUNTIME_DIR/dvv/default.sock, else /tmp/dvv<uid>/default.sock)")
	f.BoolVar(&jpeg, "jpeg", os.Getenv("DVV_MCP_IMAGE") == "jpeg", "each screen in the smaller of PNG and JPEG (JPEG for photographs, PNG for text; also DVV_MCP_IMAGE=jpeg)")
	f.IntVar(&budget.MaxEdge, "image-max-edge", envInt("DVV_MCP_IMAGE_MAX_EDGE", budget.MaxEdge),
		"a screen read without scale is halved until its long edge is at most this many pixels; 0 or less: no limit (also DVV_MCP_IMAGE_MAX_EDGE)")
	f.IntVar(&budget.MaxPixels, "image-max-pixels", envInt("DVV_MCP_IMAGE_MAX_PIXELS", budget.MaxPixels),
		"… and at most this many pixels (width × height); 0 or less: no limit (also DVV_MCP_IMAGE_MAX_PIXELS)")
	f.StringVar(&toolSets, "tools", os.Getenv("DVV_MCP_TOOLS"), "tool sets to serve beside the reference's tools, comma-separated: "+
		strings.Join(mcp.SetNames(), ", ")+" (also DVV_MCP_TOOLS; see docs/tools.md)")
	f.StringVar(&name, "name", "", "attachment name when the MCP client sends none (default dvvmcp)")
	f.BoolVar(&listTools, "list-tools", false, "print the tools these options serve, one \"NAME<TAB>SET\" line each (SET is reference for the tool reference's), and exit without reaching dvvd")
	f.BoolVar(&genDocs, "gen-docs", false, "print docs/tools.md, generated from the manifest, and exit")
	f.MarkHidden("gen-docs")
	f.BoolP("version", "v", false, "print the version and exit")
	f.StringVar(&manDir, "gen-man", "", "write the man page into this directory and exit (packaging)")
	f.MarkHidden("gen-man")
	if err := root.Execute(); err != nil {
		fmt.Fprintf(stderr, "dvvmcp: %v\n\n%s", err, root.UsageString())
		return 2
	}
	return code
}

// serve bridges MCP on stdio to dvvd until the client goes away or a signal.
func serve(stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer, opts mcp.Options) int {
	// stdout carries the protocol: every log line goes to stderr.
	slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	b := mcp.New(opts)
	err := b.ServeStdio(ctx, stdin, stdout)
	if err != nil && ctx.Err() == nil && !isEOF(err) {
		fmt.Fprintln(stderr, "dvvmcp:", err)
		return 1
	}
	return 0
}

func isEOF(err error) bool {
	return err == io.EOF || strings.Contains(err.Error(), "EOF") || strings.Contains(err.Error(), "closed")
}

// envInt reads a whole number from the environment, or def when unset or
// not a number.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return n
	}
	return def
}

// noZero keeps a budget the user turned off (0) from reading as "default".
func noZero(b mcp.ImageBudget) mcp.ImageBudget {
	if b.MaxEdge == 0 {
		b.MaxEdge = -1
	}
	if b.MaxPixels == 0 {
		b.MaxPixels = -1
	}
	return b
}
