package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/manpage"
)

// writeMan writes dvvd.1 into dir (`make package` runs dvvd --gen-man).
func writeMan(root *cobra.Command, dir string) error {
	return manpage.WriteTree(root, manpage.Header{
		Source:  "dvvd " + root.Version,
		Manual:  "dvv manual",
		SeeAlso: []string{"dvv(1)", "dvvmcp(1)", "systemd.socket(5)"},
		Sections: []manpage.Section{
			{Title: "Exit status", Text: strings.Join([]string{
				"0\tstopped by SIGTERM or SIGINT (or `dvv shutdown`) after closing every limb.",
				"1\tcould not start or serve: the socket is taken by a running dvvd or unsafe, or a passed socket is wrong; the log on stderr says which.",
				"2\ta bad flag or flag value.",
			}, "\n")},
			{Title: "Environment", Text: strings.Join([]string{
				"XDG_RUNTIME_DIR\twhere the socket lives: $XDG_RUNTIME_DIR/dvv/<id>.sock; unset, /tmp/dvv<uid>/<id>.sock.",
				"XDG_CONFIG_HOME\tsaved hosts, tokens, credentials and trusted certificates, in $XDG_CONFIG_HOME/dvv (default ~/.config/dvv).",
				"XDG_STATE_HOME\trecordings, in $XDG_STATE_HOME/dvv/recordings (default ~/.local/state/dvv/recordings).",
				"LISTEN_PID, LISTEN_FDS\tset by systemd's socket activation (dvvd.socket): dvvd serves the socket it is passed instead of binding one.",
			}, "\n")},
			{Title: "Files", Text: strings.Join([]string{
				"$XDG_RUNTIME_DIR/dvv/<id>.sock\tthe control socket, in a directory of mode 0700 (only this user may connect).",
				"/tmp/dvv<uid>/<id>.sock\tthe socket when XDG_RUNTIME_DIR is unset.",
				"~/.config/dvv/hosts.json\tsaved hosts.",
				"~/.config/dvv/tokens.json\ttoken hashes and roles.",
				"~/.config/dvv/credentials\tpasswords on a machine without a keychain (mode 0600).",
				"~/.config/dvv/known_certs\ttrusted RDP certificates.",
				"~/.local/state/dvv/recordings\trecordings.",
				"/usr/lib/systemd/user/dvvd.service, dvvd.socket\tthe packaged user units (`systemctl --user enable --now dvvd.socket`).",
			}, "\n")},
		},
	}, dir)
}
