package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// docSnippet is one ```json block of docs/mcp-clients.md and the section
// (### heading) it stands in.
type docSnippet struct {
	section, body string
	line          int
}

func clientSnippets(t *testing.T) (snippets []docSnippet, sections map[string]string) {
	t.Helper()
	f, err := os.Open("../../docs/mcp-clients.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sections = map[string]string{}
	var section string
	var block *docSnippet
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case block != nil && line == "```":
			snippets = append(snippets, *block)
			block = nil
		case block != nil:
			block.body += line + "\n"
		case line == "```json":
			block = &docSnippet{section: section, line: n + 1}
		case strings.HasPrefix(line, "### "), strings.HasPrefix(line, "#### "):
			// A client's own subsection (Tool sets' "#### VS Code") reads
			// as that client's.
			section = strings.TrimLeft(line, "# ")
		default:
			sections[section] += line + "\n"
		}
	}
	return snippets, sections
}

// serverEntry is one server of a client's configuration file: VS Code's
// `servers` entries and the others' `mcpServers` entries share these fields.
type serverEntry struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

type clientConfig struct {
	Servers    map[string]serverEntry `json:"servers"`    // VS Code
	MCPServers map[string]serverEntry `json:"mcpServers"` // Claude Code, Claude Desktop, Cursor
	Inputs     []struct {
		Type, ID, Description string
		Password              bool
	} `json:"inputs"` // VS Code: values asked of the person
}

var (
	inputVar         = regexp.MustCompile(`\$\{input:([^}]+)\}`)
	anyVar           = regexp.MustCompile(`\$\{[^}]*\}`)
	tokenPlaceholder = "dvv_…"
)

// TestClientSnippetsStartDvvmcp: every JSON configuration in
// docs/mcp-clients.md is one a client could use as written. Each is parsed
// in its client's format, its command started with its arguments and
// environment (a token placeholder or a VS Code input becomes a real
// token) against a real dvvd, and it answers initialize, tools/list and a
// tool call.
func TestClientSnippetsStartDvvmcp(t *testing.T) {
	t.Parallel()
	snippets, sections := clientSnippets(t)
	for section, where := range map[string]string{"VS Code": "`.vscode/mcp.json`", "Cursor": "`~/.cursor/mcp.json`"} {
		if !strings.Contains(sections[section], where) {
			t.Errorf("docs/mcp-clients.md has no %q section naming %s", section, where)
		}
	}
	d := startDvvd(t)
	admin, err := client.Dial(context.Background(), d.Socket, client.Options{Name: "snippet-test"})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	tok, err := admin.TokenCreate(context.Background(), wire.TokenCreateArgs{Role: "operator"})
	if err != nil || tok.Token == "" {
		t.Fatalf("token_create: %+v, %v", tok, err)
	}
	bin := binary(t, "dvvmcp")
	perSection := map[string]int{}
	for _, sn := range snippets {
		var cfg clientConfig
		dec := json.NewDecoder(strings.NewReader(sn.body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg); err != nil {
			t.Errorf("docs/mcp-clients.md:%d (%s): the snippet does not parse as a client configuration: %v", sn.line, sn.section, err)
			continue
		}
		servers := cfg.MCPServers
		if sn.section == "VS Code" {
			servers = cfg.Servers
			if cfg.MCPServers != nil {
				t.Errorf("docs/mcp-clients.md:%d: VS Code's file has servers, not mcpServers", sn.line)
			}
		} else if cfg.Servers != nil || cfg.Inputs != nil {
			t.Errorf("docs/mcp-clients.md:%d (%s): servers and inputs are VS Code's keys; this client reads mcpServers", sn.line, sn.section)
		}
		if len(servers) == 0 {
			t.Errorf("docs/mcp-clients.md:%d (%s): no server in the snippet", sn.line, sn.section)
		}
		inputs := map[string]bool{}
		for _, in := range cfg.Inputs {
			inputs[in.ID] = in.Type == "promptString" && in.Password
		}
		for name, srv := range servers {
			perSection[sn.section]++
			where := fmt.Sprintf("docs/mcp-clients.md:%d (%s, server %s)", sn.line, sn.section, name)
			if sn.section == "VS Code" && srv.Type != "stdio" {
				t.Errorf(`%s: VS Code needs "type": "stdio", got %q`, where, srv.Type)
			}
			if sn.section != "VS Code" && srv.Type != "" {
				t.Errorf("%s: type %q is VS Code's field", where, srv.Type)
			}
			t.Run(fmt.Sprintf("%s:%d/%s", sn.section, sn.line, name), func(t *testing.T) {
				runSnippetServer(t, where, srv, inputs, tok.Token, bin, d.Socket)
			})
		}
	}
	for _, section := range []string{"Claude Code", "Claude Desktop", "VS Code", "Cursor"} {
		if perSection[section] == 0 {
			t.Errorf("docs/mcp-clients.md: no tested JSON snippet under %q", section)
		}
	}
}

// runSnippetServer starts one configured server as its client would and
// speaks to it: initialize, tools/list, and dvv_limbs through the real dvvd.
func runSnippetServer(t *testing.T, where string, srv serverEntry, inputs map[string]bool, token, bin, socket string) {
	// The command as the client would find it: dvvmcp on PATH, or the
	// absolute path of an installed one, which here is the test's build.
	if filepath.Base(srv.Command) != "dvvmcp" {
		t.Fatalf("%s: command %q is not dvvmcp", where, srv.Command)
	}
	// The user's environment: dvvmcp on PATH, and (only because this dvvd is
	// a test instance) its socket.
	path := filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")
	command := srv.Command
	if filepath.IsAbs(command) {
		command = bin
	} else if command = lookIn(path, command); command == "" {
		t.Fatalf("%s: %q is not on PATH %s", where, srv.Command, path)
	}
	cmd := exec.Command(command, srv.Args...)
	env := []string{"PATH=" + path, "DVV_SOCKET=" + socket}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DVV_") && !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	for k, v := range srv.Env {
		v = inputVar.ReplaceAllStringFunc(v, func(m string) string {
			id := inputVar.FindStringSubmatch(m)[1]
			if !inputs[id] {
				t.Errorf("%s: ${input:%s} is not declared in inputs as a password promptString", where, id)
			}
			return token
		})
		if left := anyVar.FindString(v); left != "" {
			t.Errorf("%s: %s=%s holds %s, which this test cannot resolve", where, k, v, left)
		}
		v = strings.ReplaceAll(v, tokenPlaceholder, token)
		env = append(env, k+"="+v)
	}
	cmd.Env = env
	p := startRPCPeerCmd(t, cmd)
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"snippet-client","version":"1"}}}`)
	if m := p.answerTo(t, 1, -1); m["result"] == nil {
		t.Fatalf("%s: initialize: %v", where, m)
	}
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	list, _ := p.answerTo(t, 2, -1)["result"].(map[string]any)
	if tools, _ := list["tools"].([]any); len(tools) != len(Served(snippetSets(t, where, srv))) {
		t.Fatalf("%s: tools/list: %d tools, want %d", where, len(tools), len(Served(snippetSets(t, where, srv))))
	}
	p.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"dvv_limbs","arguments":{}}}`)
	res, _ := p.answerTo(t, 3, -1)["result"].(map[string]any)
	if res == nil || res["isError"] == true {
		t.Fatalf("%s: dvv_limbs through dvvd with the snippet's environment: %v", where, res)
	}
	p.in.Close()
	<-p.exited
	if p.exitErr != nil {
		t.Errorf("%s: dvvmcp after stdin closed: %v", where, p.exitErr)
	}
}

// snippetSets are the tool sets a snippet turns on: --tools, else
// DVV_MCP_TOOLS in its env.
func snippetSets(t *testing.T, where string, srv serverEntry) []string {
	t.Helper()
	spec := srv.Env["DVV_MCP_TOOLS"]
	for i, a := range srv.Args {
		if a == "--tools" && i+1 < len(srv.Args) {
			spec = srv.Args[i+1]
		} else if v, ok := strings.CutPrefix(a, "--tools="); ok {
			spec = v
		}
	}
	sets, err := ParseSets(spec)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	return sets
}

// lookIn finds an executable named name in the directories of path, as a
// client's process spawn would.
func lookIn(path, name string) string {
	for _, dir := range filepath.SplitList(path) {
		f := filepath.Join(dir, name)
		if st, err := os.Stat(f); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return f
		}
	}
	return ""
}
