package mcp

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
)

// TestGuestSetReachesTheMachine: with --tools guest an agent runs a command
// with stdin and environment (the file it writes on the server's disk),
// stats a file and reads an exact range of it, against a real dvvd and
// sshd; the reference's dvv_run does not take the new arguments.
func TestGuestSetReachesTheMachine(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	b := make([]byte, 6)
	rand.Read(b)
	d := &realDvvd{ID: "test-" + hex.EncodeToString(b), Home: s.Home}
	d.Socket = client.SocketPath(d.ID)
	d.restart(t)
	_, cs := connectBridge(t, Options{Socket: d.Socket, Sets: []string{"guest"}}, "guest-agent")
	open := call(t, cs, "dvv_open", map[string]any{"address": "127.0.0.1", "port": s.Port, "protocol": "ssh"})
	limb, _ := structuredOf(t, open)["limbId"].(string)
	if limb == "" {
		t.Fatalf("open: %s", texts(open))
	}
	if w := call(t, cs, "dvv_wait", map[string]any{"limbId": limb, "until": "connected", "timeoutMs": 20000}); w.IsError {
		t.Fatalf("wait: %s", texts(w))
	}

	out := filepath.Join(s.RemoteHome, "from-agent.txt")
	r := call(t, cs, "dvv_guest_run", map[string]any{"limbId": limb, "timeoutMs": 10000,
		"command":     `printf '%s:' "$GREETING" > ` + out + `; cat >> ` + out,
		"stdinBase64": base64.StdEncoding.EncodeToString([]byte("piped in")), "env": []string{"GREETING=it's me"}})
	if r.IsError {
		t.Fatalf("dvv_guest_run: %s", texts(r))
	}
	if got, err := os.ReadFile(out); err != nil || string(got) != "it's me:piped in" {
		t.Fatalf("the file the command wrote: %q (%v)", got, err)
	}

	st := call(t, cs, "dvv_guest_files", map[string]any{"limbId": limb, "action": "stat", "path": out})
	files, _ := structuredOf(t, st)["files"].(map[string]any)
	stat, _ := files["stat"].(map[string]any)
	if st.IsError || stat["size"] != float64(len("it's me:piped in")) || stat["kind"] != "file" {
		t.Fatalf("dvv_guest_files stat: %s", texts(st))
	}
	rg := call(t, cs, "dvv_guest_files", map[string]any{"limbId": limb, "action": "get", "path": out, "offset": 5, "length": 6})
	if rg.IsError || len(rg.Content) < 2 || rg.Content[1].(*sdk.TextContent).Text != "me:pip" {
		t.Fatalf("dvv_guest_files range: %s", texts(rg))
	}

	// The reference tool keeps the reference's arguments.
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "dvv_run",
		Arguments: map[string]any{"limbId": limb, "timeoutMs": 10000, "command": "id -u", "sudo": true}})
	if err == nil && !res.IsError {
		t.Fatalf("dvv_run took sudo: %s", texts(res))
	}
}
