package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

func serviceCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "service",
		Short: "Run dvvd as your user service: systemd user units on Linux, a LaunchAgent on macOS",
		Long: "install writes dvvd.service and dvvd.socket to $XDG_CONFIG_HOME/systemd/user (or the LaunchAgent\n" +
			"dev.dvv.dvvd to ~/Library/LaunchAgents) pointing at the dvvd installed beside this dvv, then\n" +
			"enables and starts it. uninstall stops, disables and removes them; status says what is installed,\n" +
			"enabled and answering. Without a systemd user manager in the session (no systemd --user, no session\n" +
			"bus) install writes the files and exits 9 (NOT_IMPLEMENTED): run `dvvd &` instead; uninstall still\n" +
			"removes them.",
		Example: "  dvv service install\n  dvv service install --no-start --dvvd /opt/dvv/bin/dvvd\n  dvv service status",
	}
	asGroup(cmd)
	var dvvd string
	var noStart bool
	install := &cobra.Command{
		Use:   "install",
		Short: "Write and enable dvvd's user service for the current user",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := newServiceSetup(dvvd)
			if err != nil {
				return err
			}
			return s.install(e, !noStart)
		},
	}
	install.Flags().StringVar(&dvvd, "dvvd", "", "the dvvd binary the service runs (default: beside dvv, else on $PATH)")
	install.Flags().BoolVar(&noStart, "no-start", false, "only write the files; enable and start nothing")
	uninstall := &cobra.Command{
		Use:   "uninstall",
		Short: "Stop, disable and remove dvvd's user service",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := newServiceSetup("-")
			if err != nil {
				return err
			}
			return s.uninstall(e)
		},
	}
	status := &cobra.Command{
		Use:   "status",
		Short: "Say whether dvvd's user service is installed, enabled and answering",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := newServiceSetup("-")
			if err != nil {
				return err
			}
			return s.status(e)
		},
	}
	cmd.AddCommand(install, uninstall, status)
	return cmd
}

// serviceSetup is where this platform's service files go and what manages them.
type serviceSetup struct {
	dvvd  string
	files map[string]string // path → content (content empty for uninstall/status)
	order []string
}

func newServiceSetup(dvvd string) (*serviceSetup, error) {
	if dvvd == "" {
		var err error
		if dvvd, err = findDvvd(); err != nil {
			return nil, err
		}
	}
	if dvvd != "-" {
		abs, err := filepath.Abs(dvvd)
		if err != nil {
			return nil, localErr(wire.BadRequest, "cannot make %q absolute: %v", dvvd, err)
		}
		if strings.ContainsAny(abs, " \t\n\"'\\%$&<>;") {
			return nil, usageErr("%q holds characters a service file would have to quote; install dvvd under a plainer path, or pass --dvvd", abs)
		}
		if fi, err := os.Stat(abs); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return nil, localErr(wire.NotFound, "%s is not an executable dvvd; pass --dvvd with its path", abs)
		}
		dvvd = abs
	}
	s := &serviceSetup{dvvd: dvvd, files: map[string]string{}}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, localErr(wire.BadRequest, "no home directory: %v", err)
	}
	if runtime.GOOS == "darwin" {
		p := filepath.Join(home, "Library", "LaunchAgents", launchdLabel+".plist")
		s.add(p, renderPlist(dvvd, filepath.Join(home, "Library", "Logs", "dvvd.log")))
		return s, nil
	}
	dir := filepath.Join(home, ".config")
	if x := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		dir = x
	}
	dir = filepath.Join(dir, "systemd", "user")
	s.add(filepath.Join(dir, "dvvd.service"), renderUnit(systemdService, dvvd))
	s.add(filepath.Join(dir, "dvvd.socket"), systemdSocket)
	return s, nil
}

func (s *serviceSetup) add(path, content string) {
	s.files[path] = content
	s.order = append(s.order, path)
}

// findDvvd is the dvvd beside the running dvv, else the one on $PATH.
func findDvvd() (string, error) {
	if self, err := os.Executable(); err == nil {
		if self, err = filepath.EvalSymlinks(self); err == nil {
			p := filepath.Join(filepath.Dir(self), "dvvd")
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				return p, nil
			}
		}
	}
	if p, err := exec.LookPath("dvvd"); err == nil {
		return p, nil
	}
	return "", localErr(wire.NotFound, "no dvvd beside dvv or on $PATH; pass --dvvd with its path")
}

func (s *serviceSetup) install(e *env, start bool) error {
	for _, p := range s.order {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return localErr(wire.BadRequest, "create %s: %v", filepath.Dir(p), err)
		}
		if err := writeLocal(p, []byte(s.files[p])); err != nil {
			return err
		}
		if err := os.Chmod(p, 0o644); err != nil {
			return localErr(wire.BadRequest, "chmod %s: %v", p, err)
		}
		fmt.Fprintln(e.stdout, "wrote", p)
	}
	if !start {
		fmt.Fprintln(e.stdout, "next:", s.startHint())
		return nil
	}
	for _, args := range s.startCommands() {
		if err := runManager(e, args...); err != nil {
			return s.installFailed(err)
		}
	}
	fmt.Fprintf(e.stdout, "dvvd runs as your user service (%s)\n", s.dvvd)
	return nil
}

// installFailed says what a failed start command means: without a user
// service manager in this session (no systemd --user, no session bus)
// dvvd cannot run as a service here, which is not "dvvd is not reachable"
// (exit 3) but something this environment cannot do; the files stay.
func (s *serviceSetup) installFailed(err error) error {
	dir := filepath.Dir(s.order[0])
	if runtime.GOOS != "darwin" {
		if reachable, said := probeUserManager(); !reachable {
			return &wire.Error{Code: wire.NotImplemented,
				Message: fmt.Sprintf("no systemd user service manager is reachable in this session (systemctl --user: %s): the unit files were written to %s, but nothing was enabled or started", said, dir),
				Next:    "start dvvd yourself: `dvvd &` (it serves the socket dvv uses); or, in a login session where `systemctl --user` works, run " + s.startHint()}
		}
	}
	return &wire.Error{Code: wire.Internal,
		Message: fmt.Sprintf("%v; the files are in place in %s", err, dir),
		Next:    "read what the service manager said above, fix it and run " + s.startHint() + "; meanwhile `dvvd &` runs dvvd without it"}
}

func (s *serviceSetup) uninstall(e *env) error {
	var stopErr error
	for _, args := range s.stopCommands() {
		if err := runManager(e, args...); err != nil && stopErr == nil {
			stopErr = err
		}
	}
	noManager, said := false, ""
	if stopErr != nil && runtime.GOOS != "darwin" {
		var reachable bool
		reachable, said = probeUserManager()
		noManager = !reachable
	}
	for _, p := range s.order {
		if err := os.Remove(p); err == nil {
			fmt.Fprintln(e.stdout, "removed", p)
		} else if !os.IsNotExist(err) {
			return localErr(wire.BadRequest, "remove %s: %v", p, err)
		}
	}
	if noManager {
		// systemctl could not disable the units: remove the links an
		// earlier enable made, so a later login does not start a unit
		// that is gone.
		for _, link := range s.enableLinks() {
			if err := os.Remove(link); err == nil {
				fmt.Fprintln(e.stdout, "removed", link)
			}
		}
		fmt.Fprintf(e.stderr, "dvv: no systemd user service manager is reachable in this session (systemctl --user: %s), so nothing was stopped; a dvvd started by hand still runs (`dvv shutdown` ends it)\n", said)
		return nil
	}
	if runtime.GOOS != "darwin" {
		runManager(e, "systemctl", "--user", "daemon-reload")
	}
	if stopErr != nil {
		return &wire.Error{Code: wire.Internal,
			Message: fmt.Sprintf("%v; the unit files were removed all the same", stopErr),
			Next:    "stop what still runs: `systemctl --user stop dvvd.socket dvvd.service` (or `dvv shutdown`)"}
	}
	return nil
}

// enableLinks are the links `systemctl --user enable` makes for the
// units, in the *.wants directories beside them, that point at one of them.
func (s *serviceSetup) enableLinks() []string {
	var links []string
	for _, p := range s.order {
		wants, _ := filepath.Glob(filepath.Join(filepath.Dir(p), "*.wants", filepath.Base(p)))
		for _, l := range wants {
			if fi, err := os.Lstat(l); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				links = append(links, l)
			}
		}
	}
	return links
}

// probeUserManager reports whether `systemctl --user` reaches a service
// manager in this session, and what it said when it does not. A variable:
// tests of the commands' order stand in for it.
var probeUserManager = func() (bool, string) {
	out, err := exec.Command("systemctl", "--user", "show-environment").CombinedOutput()
	if err == nil {
		return true, ""
	}
	said := strings.TrimSpace(string(out))
	if said == "" {
		said = err.Error()
	}
	return false, said
}

func (s *serviceSetup) status(e *env) error {
	for _, p := range s.order {
		state := "not installed"
		if _, err := os.Stat(p); err == nil {
			state = "installed"
		}
		fmt.Fprintf(e.stdout, "%-13s %s\n", state, p)
	}
	if runtime.GOOS == "darwin" {
		out, err := exec.Command("launchctl", "print", "gui/"+strconv.Itoa(os.Getuid())+"/"+launchdLabel).CombinedOutput()
		fmt.Fprintf(e.stdout, "launchd: %s\n", map[bool]string{true: "loaded", false: "not loaded"}[err == nil && len(out) > 0])
	} else {
		for _, unit := range []string{"dvvd.socket", "dvvd.service"} {
			enabled, _ := exec.Command("systemctl", "--user", "is-enabled", unit).Output()
			active, _ := exec.Command("systemctl", "--user", "is-active", unit).Output()
			fmt.Fprintf(e.stdout, "%-13s enabled: %s, active: %s\n", unit, orUnknown(enabled), orUnknown(active))
		}
	}
	if _, err := quiet(e, (*client.Client).Ping, wire.PingArgs{}); err != nil {
		fmt.Fprintf(e.stdout, "dvvd:         not answering on %s\n", e.socketPath())
		return nil
	}
	fmt.Fprintf(e.stdout, "dvvd:         answering on %s\n", e.socketPath())
	return nil
}

func orUnknown(b []byte) string {
	if s := strings.TrimSpace(string(b)); s != "" {
		return s
	}
	return "unknown (no user service manager reachable)"
}

func (s *serviceSetup) startCommands() [][]string {
	if runtime.GOOS == "darwin" {
		return [][]string{{"launchctl", "bootstrap", "gui/" + strconv.Itoa(os.Getuid()), s.order[0]}}
	}
	return [][]string{{"systemctl", "--user", "daemon-reload"}, {"systemctl", "--user", "enable", "--now", "dvvd.socket"}}
}

func (s *serviceSetup) stopCommands() [][]string {
	if runtime.GOOS == "darwin" {
		return [][]string{{"launchctl", "bootout", "gui/" + strconv.Itoa(os.Getuid()) + "/" + launchdLabel}}
	}
	return [][]string{{"systemctl", "--user", "disable", "--now", "dvvd.socket", "dvvd.service"}}
}

func (s *serviceSetup) startHint() string {
	var cmds []string
	for _, c := range s.startCommands() {
		cmds = append(cmds, strings.Join(c, " "))
	}
	return "`" + strings.Join(cmds, " && ") + "`"
}

// runManager is manager; tests record the commands instead of changing
// the machine's user services.
var runManager = manager

// manager runs a service manager command and turns its failure into a
// message that names the command and what it said.
func manager(e *env, args ...string) error {
	var out bytes.Buffer
	c := exec.Command(args[0], args[1:]...)
	c.Stdout, c.Stderr = &out, &out
	if err := c.Run(); err != nil {
		said := strings.TrimSpace(out.String())
		if said == "" {
			said = err.Error()
		}
		return fmt.Errorf("`%s` failed: %s", strings.Join(args, " "), said)
	}
	return nil
}
