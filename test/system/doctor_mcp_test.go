package system_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/pkg/wire"
)

// TestDoctorShowsTheToolSetsOfConfiguredBridges: `dvv doctor` finds the
// dvvmcp servers that Claude Code (user file, per project), VS Code (the
// workspace) and Cursor are configured to start, and says which tools each
// serves with the arguments and DVV_MCP_TOOLS written there, as dvvmcp
// itself lists them; a server with an unknown set fails the check with
// dvvmcp's own message, and other servers are left out. The command a
// configuration names is never run: a planted one would leave a mark.
func TestDoctorShowsTheToolSetsOfConfiguredBridges(t *testing.T) {
	d := startDaemon(t, "")
	work := t.TempDir()
	mark := filepath.Join(t.TempDir(), "ran")
	planted := filepath.Join(work, "bin", "dvvmcp")
	os.MkdirAll(filepath.Dir(planted), 0o755)
	os.WriteFile(planted, []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755)

	write := func(path string, v any) {
		t.Helper()
		b, _ := json.Marshal(v)
		os.MkdirAll(filepath.Dir(path), 0o700)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	server := func(command string, args []string, env map[string]string) map[string]any {
		return map[string]any{"command": command, "args": args, "env": env}
	}
	write(filepath.Join(d.home, ".claude.json"), map[string]any{
		"mcpServers": map[string]any{
			"dvv":   server("dvvmcp", []string{"--tools", "text,image"}, nil),
			"other": server("some-other-server", nil, nil),
		},
		"projects": map[string]any{work: map[string]any{"mcpServers": map[string]any{"plain": server(planted, nil, nil)}}},
	})
	write(filepath.Join(work, ".vscode", "mcp.json"), map[string]any{
		"servers": map[string]any{"dvv": server("/usr/local/bin/dvvmcp", nil, map[string]string{"DVV_MCP_TOOLS": "evidence", "DVV_TOKEN": "dvv_x"})},
	})
	write(filepath.Join(d.home, ".cursor", "mcp.json"), map[string]any{
		"mcpServers": map[string]any{"dvv": server("dvvmcp", []string{"--tools", "pictures"}, nil)},
	})

	cmd := exec.Command(dvvBin, "doctor", "--json")
	cmd.Dir = work
	cmd.Env = append(append([]string{}, d.env...), "DVV_SESSION=doctor")
	var out bytes.Buffer
	cmd.Stdout = &out
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 12 {
		t.Fatalf("doctor with a bad tool set: want exit 12, got %v\n%s", err, out.String())
	}
	var doc struct {
		Checks []wire.HealthCheck `json:"checks"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out.String())
	}
	var mcp []wire.HealthCheck
	for _, c := range doc.Checks {
		if c.Name == "mcp" {
			mcp = append(mcp, c)
		}
	}
	find := func(where string) wire.HealthCheck {
		t.Helper()
		for _, c := range mcp {
			if strings.Contains(c.Detail, where) {
				return c
			}
		}
		t.Fatalf("no mcp check names %q: %+v", where, mcp)
		return wire.HealthCheck{}
	}
	if len(mcp) != 4 {
		t.Errorf("want 4 mcp checks (claude user, claude project, vscode, cursor), got %d: %+v", len(mcp), mcp)
	}
	listed := func(args []string, env ...string) string {
		t.Helper()
		c := exec.Command(dvvmcpBin, append(args, "--list-tools")...)
		c.Env = append(cleanEnv(), env...)
		b, err := c.Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	user := find(`.claude.json, server "dvv"`)
	if user.Status != wire.HealthOK || !strings.Contains(user.Detail, "the reference's 25 tools; set text: dvv_find, dvv_click_text; set image: dvv_expect") {
		t.Errorf("claude user server: %+v", user)
	}
	if !strings.Contains(listed([]string{"--tools", "text,image"}), "dvv_expect\timage") {
		t.Errorf("dvvmcp --list-tools does not agree with doctor")
	}
	project := find(`(project ` + work + `), server "plain"`)
	if project.Status != wire.HealthOK || !strings.Contains(project.Detail, "the reference's 25 tools only") {
		t.Errorf("claude project server: %+v", project)
	}
	vscode := find(filepath.Join(".vscode", "mcp.json"))
	if vscode.Status != wire.HealthOK || !strings.Contains(vscode.Detail, "set evidence: dvv_history, dvv_record, dvv_report") {
		t.Errorf("vscode server: %+v", vscode)
	}
	if !strings.Contains(listed(nil, "DVV_MCP_TOOLS=evidence"), "dvv_report\tevidence") {
		t.Errorf("dvvmcp --list-tools with DVV_MCP_TOOLS does not agree with doctor")
	}
	cursor := find(filepath.Join(".cursor", "mcp.json"))
	if cursor.Status != wire.HealthFail || !strings.Contains(cursor.Detail, `unknown tool set "pictures"`) || cursor.Fix == "" {
		t.Errorf("cursor server with an unknown set: %+v", cursor)
	}
	for _, c := range mcp {
		if strings.Contains(c.Detail, "some-other-server") || strings.Contains(c.Detail, "dvv_x") {
			t.Errorf("doctor names what is not its business: %+v", c)
		}
	}
	if _, err := os.Stat(mark); !os.IsNotExist(err) {
		t.Errorf("doctor ran the command a configuration names (%s)", planted)
	}
}
