package cli

import (
	"strings"

	"github.com/spf13/cobra"
)

// Command is dvv's whole command tree, detached from any stream or socket:
// man pages and shell completions are generated from it at build time.
func Command() *cobra.Command {
	return newRoot(&env{getenv: func(string) string { return "" }})
}

// ManSection is one section every dvv man page carries after its options.
type ManSection struct {
	Title string
	// Text: paragraphs split by a blank line, `code`, and lists of
	// "term<TAB>meaning" lines (see pkg/manpage).
	Text string
}

// ManSections are dvv's EXIT STATUS, ENVIRONMENT and FILES. The exit
// statuses are docs/cli.md's table, so the two never disagree.
func ManSections() []ManSection {
	return []ManSection{
		{"Exit status", exitStatusText()},
		{"Environment", strings.Join([]string{
			"DVV_SOCKET\tdvvd's socket when --socket is not given: a path, or ssh://[user@]host[:port][/id].",
			"DVV_TOKEN\ta token (`dvv token create`) sent with every request: dvvd grants only its role's capabilities.",
			"DVV_SESSION\tthe session this shell's commands belong to: fences and leases follow it (default: the parent process, so each shell is its own session).",
			"XDG_RUNTIME_DIR\twhere the default socket lives: $XDG_RUNTIME_DIR/dvv/default.sock; unset, /tmp/dvv<uid>/default.sock.",
			"XDG_CONFIG_HOME\twhere `dvv service install` writes the user units ($XDG_CONFIG_HOME/systemd/user, default ~/.config/systemd/user).",
		}, "\n")},
		{"Files", strings.Join([]string{
			"$XDG_RUNTIME_DIR/dvv/<id>.sock\tdvvd's control socket (--id, default \"default\"), in a directory of mode 0700.",
			"/tmp/dvv<uid>/<id>.sock\tthe socket when XDG_RUNTIME_DIR is unset.",
			"~/.config/dvv/hosts.json\tsaved hosts (`dvv hosts`); passwords are in the keychain, not here.",
			"~/.config/dvv/tokens.json\ttokens (`dvv token`): their hashes and roles, never the secrets.",
			"~/.config/dvv/credentials\tpasswords on a machine without a keychain (mode 0600).",
			"~/.config/dvv/known_certs\ttrusted RDP certificates, one \"host:port fingerprint\" a line.",
			"~/.local/state/dvv/recordings\trecordings (`dvv record`).",
			"~/.config/systemd/user/dvvd.service, dvvd.socket\tthe user units `dvv service install` writes.",
		}, "\n") + "\n\nThe ~/.config and ~/.local/state paths follow XDG_CONFIG_HOME and XDG_STATE_HOME."},
	}
}

// exitStatusText is the exit table of docs/cli.md as "status<TAB>meaning"
// lines, then its closing paragraph.
func exitStatusText() string {
	var md strings.Builder
	writeExitTable(&md)
	var rows []string
	var after []string
	for _, l := range strings.Split(md.String(), "\n") {
		cells := strings.Split(strings.Trim(l, "| "), " | ")
		switch {
		case strings.HasPrefix(l, "| status") || strings.HasPrefix(l, "| ---"):
		case strings.HasPrefix(l, "| ") && len(cells) >= 2:
			row := cells[0] + "\t" + cells[1]
			if len(cells) == 3 && strings.TrimSpace(cells[2]) != "" {
				row += " (" + strings.TrimSpace(cells[2]) + ")"
			}
			rows = append(rows, row)
		case len(rows) > 0:
			after = append(after, l)
		}
	}
	return strings.Join(rows, "\n") + "\n\n" + strings.TrimSpace(strings.Join(after, "\n"))
}
