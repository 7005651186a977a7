package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/manpage"
)

// writeMan writes dvvmcp.1 into dir (`make package` runs dvvmcp --gen-man).
func writeMan(root *cobra.Command, dir string) error {
	return manpage.WriteTree(root, manpage.Header{
		Source:  "dvvmcp " + root.Version,
		Manual:  "dvv manual",
		SeeAlso: []string{"dvv(1)", "dvvd(1)"},
		Sections: []manpage.Section{
			{Title: "Exit status", Text: strings.Join([]string{
				"0\tthe MCP client closed stdin, or SIGTERM or SIGINT.",
				"1\tthe MCP session failed (the error is on stderr).",
				"2\ta bad flag or flag value.",
			}, "\n")},
			{Title: "Environment", Text: strings.Join([]string{
				"DVV_SOCKET\tdvvd's socket when --socket is not given: a path, or ssh://[user@]host[:port][/id].",
				"DVV_TOKEN\ta token (`dvv token create`): dvvd grants this bridge only its role's capabilities.",
				"DVV_MCP_IMAGE\tjpeg: as --jpeg.",
				"DVV_MCP_IMAGE_MAX_EDGE, DVV_MCP_IMAGE_MAX_PIXELS\tdefaults of --image-max-edge and --image-max-pixels.",
				"XDG_RUNTIME_DIR\twhere the default socket lives: $XDG_RUNTIME_DIR/dvv/default.sock; unset, /tmp/dvv<uid>/default.sock.",
			}, "\n")},
			{Title: "Files", Text: strings.Join([]string{
				"$XDG_RUNTIME_DIR/dvv/default.sock\tthe default dvvd socket.",
				"/tmp/dvv<uid>/default.sock\tthe socket when XDG_RUNTIME_DIR is unset.",
			}, "\n")},
		},
	}, dir)
}
