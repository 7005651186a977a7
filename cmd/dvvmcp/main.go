// Command dvvmcp is dvv's MCP server on stdio: it exposes the 25 dvv tools
// and forwards each call to dvvd's control socket.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/dvvhq/dvv/pkg/mcp"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) int {
	fs := flag.NewFlagSet("dvvmcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	socket := fs.String("socket", "", "dvvd's control socket (default $DVV_SOCKET, else $XDG_RUNTIME_DIR/dvv/default.sock, else /tmp/dvv<uid>/default.sock)")
	jpeg := fs.Bool("jpeg", os.Getenv("DVV_MCP_IMAGE") == "jpeg", "ask dvvd for JPEG screens instead of PNG (fewer tokens; also DVV_MCP_IMAGE=jpeg)")
	name := fs.String("name", "", "attachment name when the MCP client sends none (default dvvmcp)")
	genDocs := fs.Bool("gen-docs", false, "print docs/tools.md, generated from the manifest, and exit")
	version := fs.Bool("version", false, "print the version and exit")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: dvvmcp [flags]\n\n"+
			"Speaks MCP on stdin/stdout and forwards the %d dvv tools to dvvd.\n"+
			"Environment: DVV_SOCKET (socket path), DVV_TOKEN (policy token), DVV_MCP_IMAGE=jpeg.\n\nFlags:\n", mcp.ToolCount)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	switch {
	case *version:
		fmt.Fprintln(stdout, "dvvmcp", mcp.Version)
		return 0
	case *genDocs:
		if err := mcp.WriteToolsDoc(stdout); err != nil {
			fmt.Fprintln(stderr, "dvvmcp:", err)
			return 1
		}
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "dvvmcp: unexpected arguments %q; it takes only flags (see --help)\n", strings.Join(fs.Args(), " "))
		return 2
	}
	// stdout carries the protocol: every log line goes to stderr.
	slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	b := mcp.New(mcp.Options{Socket: *socket, Token: os.Getenv("DVV_TOKEN"), JPEG: *jpeg, DefaultName: *name})
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
