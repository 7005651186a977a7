package cli

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

func runCmd(e *env) *cobra.Command {
	var timeout duration
	var maxOutput int
	var cwd, stdin string
	var envs []string
	var sudo bool
	cmd := &cobra.Command{
		Use:   "run <limbId> --timeout DURATION <command>",
		Short: "Run one command on an SSH limb (or a desktop's SSH sidecar); exit with its exit status",
		Long: "Run one command (a single string, run by the remote user's shell) on a fresh channel and print\n" +
			"its stdout and stderr to dvv's own. The deadline is required (--timeout 5s; --timeout-ms 5000 and\n" +
			"--timeoutMs 5000, as the tool reference spells it, are the same). dvv exits with the remote exit status; with none: 124 when the\n" +
			"deadline ended the command, 128+N when signal N killed it, 255 otherwise. dvv's own failures keep\n" +
			"their classes (3 no dvvd, 7 no exec capability…), so use --json where the two must not mix.\n\n" +
			"--stdin FILE (or - for dvv's own stdin, at most 8 MiB) is the command's standard input; without it\n" +
			"the command reads end of file. --env NAME=VALUE (repeatable) sets variables the remote shell exports\n" +
			"before the command. --sudo runs it as root through sudo -n: a machine whose sudo would ask for a\n" +
			"password refuses with SUDO_REFUSED and the command does not run. On a desktop (VNC, RDP) limb the\n" +
			"command runs over the machine's SSH sidecar, the connection files use.",
		Example: "  dvv run ssh-5e6f7a8b --timeout 5s \"uname -a\"\n" +
			"  printf 'b\\na\\n' | dvv run ssh-5e6f7a8b --timeout 5s --stdin - sort\n" +
			"  dvv run ssh-5e6f7a8b --timeout 1m --sudo --env DEBIAN_FRONTEND=noninteractive \"apt-get -y install jq\"",
		Args: exactArgs(2, "run needs a limb id and the command (one quoted string)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := limbTarget(args[0])
			if err != nil {
				return err
			}
			req := wire.RunArgs{Target: target}
			// No default deadline: a command that never ends would hold a
			// channel and the caller forever, so the caller must choose.
			if !timeout.set {
				return usageErr("run needs --timeout, e.g. --timeout 30s (there is no default deadline)")
			}
			req.Command, req.TimeoutMs, req.Cwd = args[1], *timeout.ms(), cwd
			if cmd.Flags().Changed("max-output-bytes") {
				req.MaxOutputBytes = intp(maxOutput)
			}
			req.Env, req.Sudo = envs, sudo
			if cmd.Flags().Changed("stdin") {
				b, err := readRunStdin(e, stdin)
				if err != nil {
					return err
				}
				req.StdinBase64 = base64.StdEncoding.EncodeToString(b)
			}
			resp, err := request(e, (*client.Client).Run, req)
			if err != nil {
				return err
			}
			if resp.Run == nil {
				return nil
			}
			st := runStatus(resp.Run)
			if e.human() {
				e.writeRunOutput(resp.Run)
				// dvvd's note already said how the command ended (the
				// deadline, a signal): the status is not said twice.
				if es, ok := st.(*exitStatus); ok && resp.Run.Note != "" {
					es.msg = ""
				}
			}
			return st
		},
	}
	f := cmd.Flags()
	addDuration(f, &timeout, "timeout", 0, "deadline for the command, e.g. 5s (required)")
	f.StringVar(&cwd, "cwd", "", "remote working directory (default the home directory)")
	f.IntVar(&maxOutput, "max-output-bytes", 0, "truncate each stream after this many bytes")
	f.StringVar(&stdin, "stdin", "", "the command's standard input: a local file, or - for dvv's stdin (at most 8 MiB)")
	f.StringArrayVar(&envs, "env", nil, "NAME=VALUE the command sees (repeatable)")
	f.BoolVar(&sudo, "sudo", false, "run as root through sudo -n (refused when sudo would ask for a password)")
	return cmd
}

// runStdinMax is the most run's --stdin carries (dvvd's own bound).
const runStdinMax = 8 << 20

// readRunStdin reads run's --stdin: a local file, or - for dvv's stdin.
// One byte over the bound is enough to know it is too big.
func readRunStdin(e *env, from string) ([]byte, error) {
	var r io.Reader = e.stdin
	if from != "-" {
		f, err := os.Open(from)
		if err != nil {
			return nil, localErr(wire.NotFound, "--stdin: %v", err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, runStdinMax+1))
	if err != nil {
		return nil, localErr(wire.BadRequest, "--stdin: %v", err)
	}
	if len(b) > runStdinMax {
		return nil, localErr(wire.TooLarge, "--stdin carries more than %d bytes; put the input in a remote file (dvv files put) and redirect it in the command", runStdinMax)
	}
	return b, nil
}

// writeRunOutput copies the remote streams to dvv's own. dvvd sends a
// stream as base64 when it is not valid UTF-8, so binary output arrives
// byte for byte; drops and notes go to stderr to keep stdout the command's.
func (e *env) writeRunOutput(r *wire.RunResult) {
	write := func(w io.Writer, text, b64 string) {
		if b64 != "" {
			if b, err := base64.StdEncoding.DecodeString(b64); err == nil {
				w.Write(b)
				return
			}
		}
		io.WriteString(w, text)
	}
	write(e.dataOut(), r.Stdout, r.StdoutBase64)
	write(e.dataErr(), r.Stderr, r.StderrBase64)
	switch {
	case r.Note != "": // dvvd's note says any truncation too
		fmt.Fprintln(e.stderr, "dvv:", oneLine(r.Note))
	case r.StdoutDropped > 0 || r.StderrDropped > 0:
		fmt.Fprintf(e.stderr, "dvv: output truncated: %d stdout and %d stderr bytes were dropped\n", r.StdoutDropped, r.StderrDropped)
	}
}

// runStatus turns a remote command's end into dvv's exit status.
func runStatus(r *wire.RunResult) error {
	switch {
	case r.ExitCode != nil:
		if *r.ExitCode == 0 {
			return nil
		}
		return &exitStatus{code: *r.ExitCode & 0xff} // a process exit status is one byte, as a shell shows it
	case r.TimedOut:
		return &exitStatus{code: ExitRunTimedOut, msg: "the deadline ended the command; it reported no exit status"}
	case r.Signal != "":
		if n := signalNumber(r.Signal); n > 0 {
			return &exitStatus{code: ExitRunSignal + n, msg: "the command was killed by SIG" + strings.TrimPrefix(r.Signal, "SIG")}
		}
		return &exitStatus{code: ExitRunUnknown, msg: "the command was killed by signal " + r.Signal}
	}
	return &exitStatus{code: ExitRunUnknown, msg: "the command ended without an exit status"}
}

// signalNumber maps an SSH signal name (RFC 4254: "KILL", "TERM"…) to its
// number on this system.
func signalNumber(name string) int {
	name = strings.TrimPrefix(strings.ToUpper(name), "SIG")
	for _, s := range []struct {
		name string
		sig  syscall.Signal
	}{{"ABRT", syscall.SIGABRT}, {"ALRM", syscall.SIGALRM}, {"FPE", syscall.SIGFPE}, {"HUP", syscall.SIGHUP},
		{"ILL", syscall.SIGILL}, {"INT", syscall.SIGINT}, {"KILL", syscall.SIGKILL}, {"PIPE", syscall.SIGPIPE},
		{"QUIT", syscall.SIGQUIT}, {"SEGV", syscall.SIGSEGV}, {"TERM", syscall.SIGTERM}, {"USR1", syscall.SIGUSR1},
		{"USR2", syscall.SIGUSR2}} {
		if s.name == name {
			return int(s.sig)
		}
	}
	return 0
}

func termCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "term",
		Short: "Send raw input to a terminal limb, or read its output since a cursor",
	}
	asGroup(cmd)
	var hexBytes string
	send := &cobra.Command{
		Use:     "send <limbId> [text]",
		Short:   "Send text (UTF-8) or --hex bytes to the terminal; pair with wait or term read",
		Example: "  dvv term send ssh-5e6f7a8b $'ls\\n'\n  dvv term send ssh-5e6f7a8b --hex 03   # ctrl+c",
		Args:    rangeArgs(1, 2, "term send needs a limb id and the text (or --hex)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := limbTarget(args[0])
			if err != nil {
				return err
			}
			req := wire.TermSendArgs{Target: target}
			switch {
			case len(args) == 2 && hexBytes != "":
				return usageErr("give the text or --hex, not both")
			case len(args) == 2:
				text, err := e.textArg(args[1])
				if err != nil {
					return err
				}
				req.Text = &text
			case hexBytes != "":
				clean := strings.NewReplacer(" ", "", ":", "").Replace(hexBytes)
				if _, err := hex.DecodeString(clean); err != nil {
					return usageErr("--hex %q is not hex bytes (two digits a byte; 03 is ctrl+c)", hexBytes)
				}
				req.BytesHex = strings.ToLower(clean)
			default:
				return usageErr("term send needs the text or --hex")
			}
			req.VerifyMs = e.verifyMs()
			resp, err := request(e, (*client.Client).TermSend, req)
			if err == nil && e.human() {
				e.printAct(resp.Dispatched, resp.Verification)
			}
			return err
		},
	}
	send.Flags().StringVar(&hexBytes, "hex", "", "bytes as hex, e.g. 03 for ctrl+c, 1b5b41 for up")
	var since string
	read := &cobra.Command{
		Use:   "read <limbId>",
		Short: "Print terminal output since --since (a cursor); the next cursor goes to stderr",
		Args:  exactArgs(1, "term read needs a limb id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := limbTarget(args[0])
			if err != nil {
				return err
			}
			req := wire.TermReadArgs{Target: target}
			req.Since = since
			resp, err := request(e, (*client.Client).TermRead, req)
			if err != nil || !e.human() || resp.Term == nil {
				return err
			}
			t := resp.Term
			if t.DataBase64 != "" {
				if b, err := base64.StdEncoding.DecodeString(t.DataBase64); err == nil {
					e.dataOut().Write(b)
				}
			} else {
				io.WriteString(e.dataOut(), t.Data)
			}
			if t.Lost > 0 {
				fmt.Fprintf(e.stderr, "dvv: %d earlier bytes were overwritten in the scrollback ring\n", t.Lost)
			}
			fmt.Fprintf(e.stderr, "cursor: %s (next: dvv term read %s --since %s)\n", t.Cursor, args[0], t.Cursor)
			return nil
		},
	}
	read.Flags().StringVar(&since, "since", "", "a cursor from an earlier read (default: everything still held)")
	cmd.AddCommand(send, read)
	return cmd
}
