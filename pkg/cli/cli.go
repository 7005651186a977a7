// Package cli is the dvv command-line client. Every command is one request
// to dvvd's control socket through pkg/client; this package holds argument
// parsing, request building and output, one file per command family.
//
// Output is human by default (aligned tables for lists, key facts for a
// limb) and the answer line as one JSON object with --json. Every
// failure class has its own exit status (see exit.go and docs/cli.md).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// Version is the dvv CLI's version (set at link time with -X).
var Version = "0.1.0-dev"

// env is what every command shares: global flags and the standard streams.
type env struct {
	socket string
	// session is --session: the session key and name (default $DVV_SESSION).
	session string
	json    bool
	// verify is how long an act's answer waits for its effect (unset: dvvd's default).
	verify  duration
	timeout duration

	stdin io.Reader
	// stdout and stderr are for people: they escape control characters
	// (escape.go); rawOut and rawErr are the process's own, for data.
	stdout, stderr io.Writer
	rawOut, rawErr io.Writer

	// getenv reads the environment (DVV_TOKEN, DVV_SESSION); tests replace it.
	getenv func(string) string
	// lookupEnv tells an empty DVV_TOKEN from an unset one (nil: unset).
	lookupEnv func(string) (string, bool)
	// ctx is cancelled on Ctrl+C.
	ctx context.Context
	// send answers each request instead of dvvd (unit tests of request
	// building); the typed client and its options run over it (client.Over).
	send func(wire.Enveloped) (*wire.Reply, error)
	// attached, when set, carries every call instead of an attachment of
	// its own (a script's steps run over the script's one attachment).
	attached *client.Client
	// last is the last answer line a call read (a script step's verdict).
	last *wire.Reply
	// onProgress, when set, receives a files get or put's progress from
	// dvvd while it runs (transfer.go).
	onProgress func(wire.TransferInfo)
	// completing is set when the shell asks for completions: only then
	// are the (dvvd-backed) completion functions registered.
	completing bool
	// printed is set once the answer went to stdout as JSON, so a failure
	// is not printed twice.
	printed bool
	// op is the last op sent, for the hint after a failure.
	op string
}

// Run executes the dvv command line args and returns the exit status.
// Ctrl+C (or SIGTERM) cancels ctx for the commands that can take time, so
// they withdraw their op and say so.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if catchesSignals(args) {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	e := &env{stdin: stdin, getenv: os.Getenv, lookupEnv: os.LookupEnv, ctx: ctx,
		completing: len(args) > 0 && strings.HasPrefix(args[0], cobra.ShellCompRequestCmd)}
	e.humanStreams(stdout, stderr)
	root := newRootFor(e, args)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	// A usage error may come before cobra parsed --json: read it from args.
	e.json = e.json || jsonAsked(args)
	return e.finish(err)
}

// newRoot builds the whole command tree.
func newRoot(e *env) *cobra.Command {
	root := newBareRoot(e)
	for _, c := range commands() {
		root.AddCommand(c.build(e))
	}
	conventions(e, root)
	return root
}

// newRootFor builds what args need: the root and the one top-level command
// they name, when they name one; the whole tree for help, completion,
// docs and anything it cannot tell. Each dvv call pays only for its own
// command (see "CLI start-up" in docs/benchmarks.md).
func newRootFor(e *env, args []string) *cobra.Command {
	name, ok := commandName(args)
	if !ok {
		return newRoot(e)
	}
	root := newBareRoot(e)
	if name != "" {
		for _, c := range commands() {
			if slices.Contains(c.names, name) {
				// Not "completion" (that line gets the whole tree): cobra
				// need not add its completion command.
				root.CompletionOptions.DisableDefaultCmd = true
				root.AddCommand(c.build(e))
				conventions(e, root)
				return root
			}
		}
		return newRoot(e) // unknown: the whole tree suggests the closest
	}
	return root
}

// commandName finds the top-level command args name, skipping the global
// flags before it as the root defines them (rootFlags), so a global flag
// added there is skipped here with no other edit. "" with ok means no
// command and only --version (no sub-command is needed); !ok means the
// whole tree is needed: help, no arguments, completion, or a flag the root
// does not define.
func commandName(args []string) (name string, ok bool) {
	flags := rootFlags()
	version := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			return a, true
		}
		flagName, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		var f *pflag.Flag
		switch {
		case strings.HasPrefix(a, "--") && flagName != "":
			f = flags.Lookup(flagName)
		case len(a) == 2:
			f = flags.ShorthandLookup(a[1:])
		}
		switch {
		case f == nil || f.Name == "help":
			return "", false // --help, --, or a flag cobra must judge
		case f.Name == "version":
			if hasValue {
				return "", false
			}
			version = true
		case f.NoOptDefVal == "" && !hasValue:
			i++ // the flag's value
		}
	}
	return "", version
}

// rootFlags are the root command's own and persistent flags, read from
// newBareRoot once: only their names, shorthands and whether they take a
// value matter here.
var rootFlags = sync.OnceValue(func() *pflag.FlagSet {
	root := newBareRoot(&env{})
	fs := pflag.NewFlagSet("dvv", pflag.ContinueOnError)
	fs.AddFlagSet(root.Flags())
	fs.AddFlagSet(root.PersistentFlags())
	return fs
})

// instant are the commands that answer at once: Ctrl+C may end them the
// default way. Catching signals costs a dvv call about half a millisecond
// (two goroutines, and the threads the runtime starts to run them).
var instant = []string{"ping", "socket", "help", "completion", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd, "gen-docs"}

// catchesSignals reports whether args run a command that needs Ctrl+C to
// cancel its context: not --version, help or an argument error, not an
// instant command.
func catchesSignals(args []string) bool {
	name, ok := commandName(args)
	if !ok || name == "" || slices.Contains(instant, name) {
		return false
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "--help" {
			return false
		}
	}
	return true
}

// newBareRoot is the root command with its flags and no sub-commands.
func newBareRoot(e *env) *cobra.Command {
	// Help and docs list commands in the order a reader meets them.
	cobra.EnableCommandSorting = false
	root := &cobra.Command{
		Use:   "dvv",
		Short: "Drive remote machines (VNC, RDP, SSH) through dvvd",
		Long: "dvv is the command-line client of dvvd, the daemon that holds live connections (limbs) to remote\n" +
			"machines. Each command is one request to dvvd's socket. Commands typed in the same terminal, or run\n" +
			"by the same agent or CI job (each in a fresh shell), share one attachment, so a lease taken with\n" +
			"`dvv control acquire` holds for the next `dvv click`.",
		Version:       Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("dvv {{.Version}}\n")
	root.Flags().BoolP("version", "v", false, "print dvv's version and exit (`dvv version` asks dvvd too)")
	asGroup(root)
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErr("%v (see `%s --help`)", err, c.CommandPath())
	})
	pf := root.PersistentFlags()
	pf.StringVar(&e.socket, "socket", "", "dvvd's control socket: a path, or ssh://[user@]host[:port][/id] for the dvvd of that user on that machine (default $DVV_SOCKET, else $XDG_RUNTIME_DIR/dvv/default.sock, else /tmp/dvv<uid>/default.sock)")
	pf.StringVar(&e.session, "session", "", "the session to act in, and the name leases show (default $DVV_SESSION, else the terminal's session, or without a terminal the process that starts the shells, e.g. \"node[777]\")")
	pf.BoolVar(&e.json, "json", false, "print dvvd's answer as one raw JSON object")
	addDuration(pf, &e.verify, "verify", 0, "how long click, type, key and term send wait to see their effect (default: dvvd's 300ms; 0s answers at once)")
	addDuration(pf, &e.timeout, "timeout", 0, "deadline for dvvd's answer (default: 60s plus any wait the command asks for)")

	return root
}

// command is one top-level command: the names that call it (its name
// first, then its aliases; a test holds them equal to what build makes)
// and how to build it.
type command struct {
	names []string
	build func(*env) *cobra.Command
}

// commands are dvv's top-level commands, in the order help lists them (a
// function, as gen-docs builds the tree itself).
func commands() []command {
	return []command{
		{[]string{"limbs"}, limbsCmd}, {[]string{"open"}, openCmd}, {[]string{"close"}, closeCmd},
		{[]string{"reconnect"}, reconnectCmd}, {[]string{"status"}, statusCmd}, {[]string{"signals"}, signalsCmd},
		{[]string{"history"}, historyCmd},
		{[]string{"machine"}, machineCmd},
		{[]string{"control"}, controlCmd}, {[]string{"viewer"}, viewerCmd}, {[]string{"share"}, shareCmd},
		{[]string{"pause"}, func(e *env) *cobra.Command { return pauseCmd(e, "pause") }},
		{[]string{"resume"}, func(e *env) *cobra.Command { return pauseCmd(e, "resume") }},
		{[]string{"click"}, clickCmd}, {[]string{"type"}, typeCmd}, {[]string{"key"}, keyCmd}, {[]string{"clipboard"}, clipboardCmd},
		{[]string{"windows"}, windowsCmd}, {[]string{"window"}, windowCmd}, {[]string{"workspaces"}, workspacesCmd},
		{[]string{"screen"}, screenCmd}, {[]string{"wait"}, waitCmd}, {[]string{"find"}, findCmd}, {[]string{"inspect"}, inspectCmd}, {[]string{"element"}, elementCmd}, {[]string{"expect"}, expectCmd},
		{[]string{"run"}, runCmd}, {[]string{"term"}, termCmd}, {[]string{"script"}, scriptCmd}, {[]string{"replay"}, replayCmd},
		{[]string{"files"}, filesCmd}, {[]string{"transfer"}, transferCmd},
		{[]string{"hosts"}, hostsCmd}, {[]string{"token"}, tokenCmd}, {[]string{"group"}, groupCmd},
		{[]string{"ping"}, pingCmd}, {[]string{"socket"}, socketCmd}, {[]string{"events"}, eventsCmd}, {[]string{"shutdown"}, shutdownCmd},
		{[]string{"version"}, versionCmd}, {[]string{"service"}, serviceCmd}, {[]string{"stdio-proxy"}, stdioProxyCmd},
		{[]string{"doctor"}, doctorCmd}, {[]string{"report"}, reportCmd}, {[]string{"record"}, recordCmd},
		{[]string{"gen-docs"}, genDocsCmd},
	}
}

// finish prints a failure and maps it to an exit status.
func (e *env) finish(err error) int {
	if err == nil {
		return wire.ExitOK
	}
	var st *exitStatus
	if errors.As(err, &st) {
		if st.msg != "" {
			fmt.Fprintln(e.stderr, "dvv:", oneLine(st.msg)) // may carry a server's words (a signal name)
		}
		return st.code
	}
	var ue *usageError
	if errors.As(err, &ue) {
		e.usageJSON(ue.msg)
		fmt.Fprintln(e.stderr, "dvv:", ue.msg)
		return wire.ExitUsage
	}
	var we *wire.Error
	if errors.As(err, &we) {
		if e.json && !e.printed {
			e.printJSON(wire.ErrorReply(nil, we))
		}
		fmt.Fprintf(e.stderr, "dvv: %s: %s\n", we.Code, oneLine(we.Message))
		if next := nextFor(e.op, we); next != "" {
			fmt.Fprintf(e.stderr, "next: %s\n", oneLine(next))
		}
		return we.Exit()
	}
	// Anything else comes from cobra's own argument handling.
	e.usageJSON(err.Error())
	fmt.Fprintln(e.stderr, "dvv:", err)
	return wire.ExitUsage
}

// usageJSON prints a command-line mistake as the failure --json promises:
// one object of dvvd's shape, code BAD_REQUEST (nothing was sent).
func (e *env) usageJSON(msg string) {
	if e.json && !e.printed {
		e.printJSON(wire.ErrorReply(nil, &wire.Error{Code: wire.BadRequest, Message: msg,
			Next: "fix the command line (dvv COMMAND --help shows its arguments and flags); nothing was sent to dvvd"}))
	}
}

// jsonAsked reports whether args ask for --json (before a "--").
func jsonAsked(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--json", "--json=true", "--json=1":
			return true
		}
	}
	return false
}

// asGroup makes a command that only holds sub-commands print its help when
// called alone, and refuse an unknown sub-command with exit status 2
// (cobra would otherwise print help and exit 0).
func asGroup(c *cobra.Command) *cobra.Command {
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usageErr("unknown command %q for %q%s (see `%s --help`)", args[0], cmd.CommandPath(), suggest(cmd, args[0]), cmd.CommandPath())
		}
		return cmd.Help()
	}
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[groupAnnotation] = "true"
	return c
}

const groupAnnotation = "dvv-group"
