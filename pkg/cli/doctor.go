package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// ExitDoctorFailed: `dvv doctor` found at least one check that failed.
const ExitDoctorFailed = 12

func doctorCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check dvv's setup, one line per check with the fix (exit 12 when one fails)",
		Long: "doctor checks the socket directory, that dvvd answers and runs the CLI's version, the systemd user\n" +
			"unit, and then asks dvvd to check what it depends on from its own environment: the keychain, Avahi,\n" +
			"the ssh-agent, ~/.ssh/config, and every saved host (reachable, host key trusted). For every dvvmcp an\n" +
			"MCP client is configured to start (Claude Code, Claude Desktop, VS Code, Cursor), it lists the tools\n" +
			"and tool sets that dvvmcp serves with the arguments and DVV_MCP_* variables written there. Warnings do not\n" +
			"change the exit status; a failed check exits 12.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			checks := e.doctor()
			failed := false
			for _, c := range checks {
				failed = failed || c.Status == wire.HealthFail
			}
			if e.json {
				e.printJSON(struct {
					Result string             `json:"result"`
					Checks []wire.HealthCheck `json:"checks"`
				}{"doctor", checks})
			} else {
				printChecks(e, checks)
			}
			if failed {
				return &exitStatus{code: ExitDoctorFailed}
			}
			return nil
		},
	}
}

// doctor runs the CLI's own checks, then dvvd's when it answers.
func (e *env) doctor() []wire.HealthCheck {
	path := e.socketPath()
	checks := []wire.HealthCheck{checkSocketDir(path)}
	ctx, cancel := context.WithTimeout(e.ctx, 20*time.Second)
	defer cancel()
	c, err := e.dial(ctx)
	if err != nil {
		fail := wire.HealthCheck{Name: "dvvd", Status: wire.HealthFail, Detail: err.Error()}
		if we, ok := err.(*wire.Error); ok {
			fail.Detail, fail.Fix = we.Message, we.Next
		}
		checks = append(checks, fail, checkUnit())
		return append(checks, e.checkMCP()...)
	}
	defer c.Close()
	info := c.Info
	checks = append(checks, wire.HealthCheck{Name: "dvvd", Status: wire.HealthOK,
		Detail: fmt.Sprintf("dvvd %s answers on %s (pid %d); you are %q with role %s", info.Version, path, info.PID, info.Attachment, info.Role)})
	checks = append(checks, checkVersion(info), checkUnit())
	checks = append(checks, e.checkMCP()...)
	resp, err := c.Health(ctx, wire.HealthArgs{})
	if err != nil {
		fail := wire.HealthCheck{Name: "dvvd checks", Status: wire.HealthFail, Detail: err.Error()}
		if we, ok := err.(*wire.Error); ok {
			fail.Detail, fail.Fix = string(we.Code)+": "+we.Message, we.Next
		}
		return append(checks, fail)
	}
	return append(checks, resp.Checks...)
}

// checkMCP is checkMCPConfigs for this user and working directory.
func (e *env) checkMCP() []wire.HealthCheck {
	home, _ := os.UserHomeDir()
	cwd, _ := os.Getwd()
	return checkMCPConfigs(home, cwd)
}

// checkSocketDir applies dvvd's and the client's own rules to the socket's
// directory (client.CheckDir); a remote dvvd's directory is its own affair.
func checkSocketDir(path string) wire.HealthCheck {
	c := wire.HealthCheck{Name: "socket"}
	dir := filepath.Dir(path)
	if strings.HasPrefix(path, "ssh://") {
		c.Status, c.Detail = wire.HealthSkip, "dvvd is on another machine ("+path+")"
		return c
	}
	if _, err := os.Lstat(dir); os.IsNotExist(err) {
		c.Status, c.Detail, c.Fix = wire.HealthWarn, dir+" does not exist (dvvd creates it when it starts)", "start dvvd"
		return c
	}
	if err := client.CheckDir(dir); err != nil {
		c.Status, c.Detail = wire.HealthFail, err.Error()
		c.Fix = "see the detail; docs/security.md says why the socket's directory must be yours alone"
		return c
	}
	c.Status, c.Detail = wire.HealthOK, dir+" is yours alone"
	return c
}

func checkVersion(d *wire.DaemonInfo) wire.HealthCheck {
	c := wire.HealthCheck{Name: "version"}
	switch {
	case d.Protocol != wire.ProtocolVersion:
		c.Status = wire.HealthFail
		c.Detail = fmt.Sprintf("dvvd speaks protocol %d, this dvv %d", d.Protocol, wire.ProtocolVersion)
		c.Fix = "install dvv and dvvd from the same release, then restart dvvd"
	case d.Version != Version:
		c.Status, c.Detail = wire.HealthWarn, fmt.Sprintf("dvvd is %s, this dvv is %s (same protocol)", d.Version, Version)
		c.Fix = "restart dvvd after an upgrade so both run the same release"
	default:
		c.Status, c.Detail = wire.HealthOK, "dvv and dvvd are both "+Version
	}
	return c
}

// checkUnit reads the systemd user unit's state where systemd runs one.
func checkUnit() wire.HealthCheck {
	c := wire.HealthCheck{Name: "service"}
	if _, err := exec.LookPath("systemctl"); err != nil {
		c.Status, c.Detail = wire.HealthSkip, "no systemctl here"
		return c
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "systemctl", "--user", "is-active", "dvvd.service").Output()
	state := strings.TrimSpace(string(out))
	switch {
	case state == "active":
		c.Status, c.Detail = wire.HealthOK, "the dvvd user unit is active"
	case state == "":
		c.Status, c.Detail = wire.HealthSkip, "no systemd user manager answers ("+errText(err)+")"
	case state == "failed":
		c.Status, c.Detail = wire.HealthFail, "the dvvd user unit failed"
		c.Fix = "journalctl --user -u dvvd to read why, then systemctl --user restart dvvd"
	default:
		c.Status, c.Detail = wire.HealthSkip, "the dvvd user unit is "+state+" (dvvd runs some other way)"
	}
	return c
}

func errText(err error) string {
	if err == nil {
		return "no answer"
	}
	return err.Error()
}

func printChecks(e *env, checks []wire.HealthCheck) {
	t := newTable(e.stdout, "STATUS", "CHECK", "DETAIL")
	for _, c := range checks {
		t.row(c.Status, c.Name, c.Detail)
		if c.Fix != "" && c.Status != wire.HealthOK {
			t.row("", "", "fix: "+c.Fix)
		}
	}
	t.flush()
}
