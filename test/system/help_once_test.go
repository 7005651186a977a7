package system_test

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestFlagHelpIsTheToolArgumentsDoc: a field's help is written once, as
// the doc comment of its op's Args field, and both faces read it: the real
// dvv's flag help and the real dvvmcp's tools/list say the same words
// (flag style: a lower-case start, no full stop).
func TestFlagHelpIsTheToolArgumentsDoc(t *testing.T) {
	docs := toolArgumentDocs(t)
	for _, c := range []struct {
		cmd       []string
		flag      string
		tool, arg string
	}{
		{[]string{"click", "--help"}, "--to-x", "dvv_click", "toX"},
		{[]string{"click", "--help"}, "--to-y", "dvv_click", "toY"},
		{[]string{"control", "acquire", "--help"}, "--reason", "dvv_control", "reason"},
		{[]string{"group", "open", "--help"}, "--perceive", "dvv_group_open", "perceive"},
		{[]string{"group", "grow", "--help"}, "--perceive", "dvv_group_grow", "perceive"},
	} {
		out, err := exec.Command(dvvBin, c.cmd...).Output()
		if err != nil {
			t.Fatalf("dvv %s: %v", strings.Join(c.cmd, " "), err)
		}
		flag := flagHelp(string(out), c.flag)
		doc, ok := docs[c.tool][c.arg]
		if !ok {
			t.Fatalf("tools/list has no argument %s of %s", c.arg, c.tool)
		}
		if want := asFlagHelp(doc); flag != want {
			t.Errorf("dvv %s %s says %q; %s's %s says %q", strings.Join(c.cmd[:len(c.cmd)-1], " "), c.flag, flag, c.tool, c.arg, doc)
		}
	}
}

// flagHelp is the help text of one flag in cobra's usage: the words after
// the flag and its type.
func flagHelp(usage, flag string) string {
	for _, line := range strings.Split(usage, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != flag {
			continue
		}
		rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), flag))
		if typ, help, ok := strings.Cut(rest, "  "); ok && !strings.Contains(typ, " ") {
			return strings.TrimSpace(help) // "int  help…"
		}
		return rest // a bool flag has no type
	}
	return ""
}

func asFlagHelp(doc string) string {
	doc = strings.TrimSuffix(doc, ".")
	if len(doc) > 1 && doc[0] >= 'A' && doc[0] <= 'Z' && (doc[1] < 'A' || doc[1] > 'Z') {
		doc = strings.ToLower(doc[:1]) + doc[1:]
	}
	return doc
}

// toolArgumentDocs asks the real dvvmcp for its tools over stdio and
// returns each tool's argument descriptions.
func toolArgumentDocs(t *testing.T) map[string]map[string]string {
	t.Helper()
	cmd := exec.Command(dvvmcpBin, "--tools", "all")
	cmd.Env = append(cleanEnv(), "HOME="+t.TempDir(), "XDG_RUNTIME_DIR="+t.TempDir())
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"help-once","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
`)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 8<<20)
	for sc.Scan() {
		var msg struct {
			ID     int `json:"id"`
			Result struct {
				Tools []struct {
					Name        string `json:"name"`
					InputSchema struct {
						Properties map[string]struct {
							Description string `json:"description"`
						} `json:"properties"`
					} `json:"inputSchema"`
				} `json:"tools"`
			} `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID != 2 {
			continue
		}
		docs := map[string]map[string]string{}
		for _, tool := range msg.Result.Tools {
			docs[tool.Name] = map[string]string{}
			for name, p := range tool.InputSchema.Properties {
				docs[tool.Name][name] = p.Description
			}
		}
		return docs
	}
	t.Fatalf("dvvmcp answered no tools/list: %v", sc.Err())
	return nil
}
