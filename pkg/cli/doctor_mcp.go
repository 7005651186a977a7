package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dvvhq/dvv/pkg/wire"
)

// mcpConfigFiles are where MCP clients keep their servers, relative to HOME
// ("~/") or to the working directory: Claude Code (user and project),
// Claude Desktop (Linux and macOS), VS Code (user and workspace) and Cursor
// (user and project).
var mcpConfigFiles = []string{
	"~/.claude.json", ".mcp.json",
	"~/.config/Claude/claude_desktop_config.json", "~/Library/Application Support/Claude/claude_desktop_config.json",
	"~/.config/Code/User/mcp.json", "~/Library/Application Support/Code/User/mcp.json", ".vscode/mcp.json",
	"~/.cursor/mcp.json", ".cursor/mcp.json",
}

// mcpServer is one server entry of an MCP client's configuration.
type mcpServer struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// dvvmcpEntry is a configured dvvmcp: where it is written and how it runs.
type dvvmcpEntry struct {
	where string // file and server name
	mcpServer
}

// findDvvmcpEntries reads the MCP client configurations that exist and
// returns their servers whose command is dvvmcp. Servers sit under
// mcpServers (Claude, Cursor; Claude Code also per project under
// projects.<dir>.mcpServers) or servers (VS Code).
func findDvvmcpEntries(home, cwd string) []dvvmcpEntry {
	var out []dvvmcpEntry
	for _, name := range mcpConfigFiles {
		path := filepath.Join(cwd, name)
		if rest, ok := strings.CutPrefix(name, "~/"); ok {
			path = filepath.Join(home, rest)
		}
		b, err := os.ReadFile(path)
		if err != nil || len(b) > 16<<20 {
			continue
		}
		var doc struct {
			MCPServers map[string]mcpServer `json:"mcpServers"`
			Servers    map[string]mcpServer `json:"servers"`
			Projects   map[string]struct {
				MCPServers map[string]mcpServer `json:"mcpServers"`
			} `json:"projects"`
		}
		if json.Unmarshal(b, &doc) != nil {
			continue
		}
		add := func(prefix string, servers map[string]mcpServer) {
			names := make([]string, 0, len(servers))
			for n := range servers {
				names = append(names, n)
			}
			slices.Sort(names)
			for _, n := range names {
				if s := servers[n]; filepath.Base(s.Command) == "dvvmcp" {
					out = append(out, dvvmcpEntry{where: fmt.Sprintf("%s%s, server %q", path, prefix, n), mcpServer: s})
				}
			}
		}
		add("", doc.MCPServers)
		add("", doc.Servers)
		dirs := make([]string, 0, len(doc.Projects))
		for d := range doc.Projects {
			dirs = append(dirs, d)
		}
		slices.Sort(dirs)
		for _, d := range dirs {
			add(" (project "+d+")", doc.Projects[d].MCPServers)
		}
	}
	return out
}

// checkMCPConfigs says, for every dvvmcp an MCP client is configured to
// start, which tools it serves. It asks this release's dvvmcp (beside dvv,
// else on PATH) with the entry's arguments and its DVV_MCP_* variables;
// it never runs the command a configuration names, which a cloned
// project's .mcp.json could point anywhere.
func checkMCPConfigs(home, cwd string) []wire.HealthCheck {
	entries := findDvvmcpEntries(home, cwd)
	if len(entries) == 0 {
		return []wire.HealthCheck{{Name: "mcp", Status: wire.HealthSkip,
			Detail: "no MCP client configuration here names dvvmcp (docs/mcp-clients.md shows how to add it)"}}
	}
	bin := dvvmcpBinary()
	var checks []wire.HealthCheck
	for _, e := range entries {
		c := wire.HealthCheck{Name: "mcp"}
		if bin == "" {
			c.Status, c.Detail = wire.HealthWarn, e.where+": dvvmcp is not beside dvv nor on PATH, so its tools cannot be listed"
			c.Fix = "install dvvmcp from the same release as dvv"
			checks = append(checks, c)
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		cmd := exec.CommandContext(ctx, bin, append(slices.Clone(e.Args), "--list-tools")...)
		cmd.Env = dvvmcpEnv(e.Env)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		cancel()
		if err != nil {
			msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
			c.Status, c.Detail = wire.HealthFail, fmt.Sprintf("%s: dvvmcp %s does not start: %s", e.where, strings.Join(e.Args, " "), msg)
			c.Fix = "correct the server's args or DVV_MCP_TOOLS in that file (dvvmcp --help lists them)"
			checks = append(checks, c)
			continue
		}
		c.Status, c.Detail = wire.HealthOK, e.where+": "+describeServed(string(out))
		checks = append(checks, c)
	}
	return checks
}

// dvvmcpBinary is the dvvmcp of this release: beside dvv, else on PATH.
func dvvmcpBinary() string {
	if self, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(self), "dvvmcp"); isExecutable(p) {
			return p
		}
	}
	p, _ := exec.LookPath("dvvmcp")
	return p
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// dvvmcpEnv is dvv's environment without DVV_MCP_* settings, then the
// entry's own DVV_MCP_* variables: the ones that choose tools and images.
func dvvmcpEnv(entry map[string]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DVV_MCP_") {
			env = append(env, kv)
		}
	}
	for k, v := range entry {
		if strings.HasPrefix(k, "DVV_MCP_") {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// describeServed sums up dvvmcp --list-tools: the reference's tools and
// each set with its tools.
func describeServed(list string) string {
	reference := 0
	var sets []string
	bySet := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		name, set, ok := strings.Cut(line, "\t")
		switch {
		case !ok:
			continue
		case set == "reference":
			reference++
		default:
			if _, seen := bySet[set]; !seen {
				sets = append(sets, set)
			}
			bySet[set] = append(bySet[set], name)
		}
	}
	s := fmt.Sprintf("the reference's %d tools", reference)
	if len(sets) == 0 {
		return s + " only (more with --tools: docs/mcp-clients.md, Tool sets)"
	}
	for _, set := range sets {
		s += fmt.Sprintf("; set %s: %s", set, strings.Join(bySet[set], ", "))
	}
	return s
}
