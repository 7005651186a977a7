package mcp

import "github.com/dvvhq/dvv/pkg/wire"

// What the guest set's answers cost: the command's own output, or the
// bytes read, plus the answer around them.
const (
	costGuestRun   = "Cost: no image; the command's output (each stream at most maxOutputBytes, 1 MiB by default) plus about 300 bytes."
	costGuestFiles = "Cost: no image; about 300 bytes for stat, put and append, plus the bytes read for a get (at most 256 KiB inline)."
)

const (
	docGuestRun = "Runs one command line on a terminal (SSH) limb, or on a desktop limb over its machine's SSH sidecar, as dvv_run " +
		"does, with what dvv_run does not offer: stdinBase64 " +
		"(the command's standard input, at most 8 MiB; never kept in history or recordings), env (NAME=VALUE entries the remote " +
		"shell exports before the command) and sudo (as root through sudo -n: SUDO_REFUSED, with nothing run, when sudo would ask " +
		"for a password). Needs the exec capability. " + costGuestRun

	docGuestFiles = "Remote files over SFTP, as dvv_files does, with what dvv_files does not offer: stat (kind, size, mode, uid, gid, " +
		"modified of the path itself, as stat(1) shows it), get with offset and length (exact byte ranges) and put with append " +
		"(add to the end of the file instead of replacing it). " + costGuestFiles
)

// guestSet is the guest channel beyond the tool reference's run and files:
// input, environment and root for commands; stat, ranges and appends.
var guestSet = ToolSet{Name: "guest", Doc: "commands with stdin, environment and root; file stat, ranges and appends",
	Budget: 8 << 10, Tools: fromSpec([]Tool{
		{Name: "dvv_guest_run", Op: wire.OpRun, Set: "guest", Title: "Run a command with input, environment or root", Doc: docGuestRun,
			Shell: "dvv run <limbId> --timeout 5s --sudo --stdin - \"command\"",
			Args: withTrio(
				arg("command", "One command line, run by the remote user's shell."),
				arg("cwd", "Working directory; the home directory when absent."),
				arg("timeoutMs", "Deadline in milliseconds; there is no default."),
				arg("maxOutputBytes", "Cap on each of stdout and stderr."),
				maxBytes(arg("stdinBase64", "The command's standard input, base64; absent: end of file at once."), 12<<20),
				arg("env", "Environment entries, each NAME=VALUE."),
				arg("sudo", "Run as root through sudo -n."),
			)},
		{Name: "dvv_guest_files", Op: wire.OpFiles, Set: "guest", Title: "Files: stat, ranges, appends", Doc: docGuestFiles,
			Shell: "dvv files stat <limbId> /etc/hostname",
			Args: withTrio(
				arg("action", "What to do."),
				arg("path", "The remote path; ~ and ~/x resolve against the remote home."),
				arg("to", "rename: the new remote path. get: an absolute local path to save to."),
				arg("from", "put only: an absolute local path to upload."),
				maxBytes(arg("contentBase64", "put only: the bytes to write, base64."), MaxContentBase64),
				arg("mode", "put only: permission bits, e.g. 420 for 0644."),
				arg("recursive", "remove only: remove a directory and what it holds."),
				arg("offset", "get only: the first byte to read."),
				arg("length", "get only: how many bytes to read; absent: to the end."),
				arg("append", "put only: add to the end of the file (created when missing)."),
			)},
	})}
