package mcp

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
)

// TestFilesGetInlineReplyBudget runs the dvvmcp binary against a real dvvd
// and sshd and holds what an inline dvv_files get costs an agent, in reply
// bytes: a UTF-8 text file comes back once, as its own text (not base64,
// and not again in structuredContent); a binary file once, as base64; a
// file over the inline cap is refused with TOO_LARGE whose Next names to.
func TestFilesGetInlineReplyBudget(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	b := make([]byte, 6)
	rand.Read(b)
	d := &realDvvd{ID: "test-" + hex.EncodeToString(b), Home: s.Home}
	d.Socket = client.SocketPath(d.ID)
	d.restart(t)
	p := startRPCPeer(t, d.Socket)
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"inline-test","version":"1"}}}`)
	p.answerTo(t, 1, -1)
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"dvv_open","arguments":{"address":"127.0.0.1","port":%d,"protocol":"ssh"}}}`, s.Port))
	res, _ := p.answerTo(t, 2, -1)["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	limbID, _ := sc["limbId"].(string)
	if limbID == "" {
		t.Fatalf("open: %v", res)
	}
	p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"dvv_wait","arguments":{"limbId":%q,"until":"connected","timeoutMs":20000}}}`, limbID))
	if m := p.answerTo(t, 3, -1); toolFailed(m) {
		t.Fatalf("wait connected: %v", m)
	}

	// The files, written on the server's side.
	text := []byte(strings.Repeat("build step ok: é ✓ 日本\n", 200<<10/30)) // ~200 KiB of UTF-8
	bin := make([]byte, 64<<10)
	rand.Read(bin)
	big := []byte(strings.Repeat("x", 1290000)) // the size the issue measured
	for name, data := range map[string][]byte{"log.txt": text, "blob.bin": bin, "big.txt": big} {
		if err := os.WriteFile(filepath.Join(s.RemoteHome, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	id := 10
	get := func(name string) (map[string]any, int) {
		t.Helper()
		id++
		m, _ := progressCall(t, p, id, map[string]any{"limbId": limbID, "action": "get", "path": filepath.Join(s.RemoteHome, name)}, "", nil)
		line, _ := json.Marshal(m)
		return m, len(line)
	}
	blocks := func(m map[string]any) []string {
		res, _ := m["result"].(map[string]any)
		content, _ := res["content"].([]any)
		var out []string
		for _, c := range content {
			c, _ := c.(map[string]any)
			s, _ := c["text"].(string)
			out = append(out, s)
		}
		return out
	}
	noContentInStructured := func(what string, m map[string]any) {
		t.Helper()
		res, _ := m["result"].(map[string]any)
		if sc, _ := json.Marshal(res["structuredContent"]); bytes.Contains(sc, []byte("contentBase64")) {
			t.Errorf("%s: structuredContent carries the content again: %.200s", what, sc)
		}
	}

	// Text: the file's own bytes, once; the reply is the file (as a JSON
	// string) plus a few KiB.
	m, n := get("log.txt")
	if toolFailed(m) {
		t.Fatalf("get log.txt: %v", m)
	}
	found := 0
	for _, b := range blocks(m) {
		if b == string(text) {
			found++
		}
	}
	if found != 1 {
		t.Errorf("text file: %d blocks hold its text; want exactly 1", found)
	}
	noContentInStructured("text file", m)
	quoted, _ := json.Marshal(string(text)) // the text as a JSON string: its newlines escaped
	if budget := len(quoted) + 4<<10; n > budget {
		t.Errorf("text file of %d bytes: reply %d bytes, over %d", len(text), n, budget)
	}
	t.Logf("text file %d bytes: reply %d bytes", len(text), n)

	// Binary: base64 once.
	m, n = get("blob.bin")
	if toolFailed(m) {
		t.Fatalf("get blob.bin: %v", m)
	}
	enc := base64.StdEncoding.EncodeToString(bin)
	found = 0
	for _, b := range blocks(m) {
		found += strings.Count(b, enc)
	}
	if found != 1 {
		t.Errorf("binary file: its base64 appears %d times in the text blocks; want 1", found)
	}
	noContentInStructured("binary file", m)
	if budget := len(enc) + 4<<10; n > budget {
		t.Errorf("binary file of %d bytes: reply %d bytes, over %d", len(bin), n, budget)
	}
	t.Logf("binary file %d bytes: reply %d bytes", len(bin), n)

	// Over the cap: TOO_LARGE, naming to, and a small reply.
	m, n = get("big.txt")
	res, _ = m["result"].(map[string]any)
	sc, _ = res["structuredContent"].(map[string]any)
	e, _ := sc["error"].(map[string]any)
	if !toolFailed(m) || e["code"] != "TOO_LARGE" || !strings.Contains(fmt.Sprint(e["next"]), "with to") {
		t.Fatalf("a %d-byte file inline: want TOO_LARGE with a Next naming to; got %.400v", len(big), m)
	}
	if n > 4<<10 {
		t.Errorf("the refusal is %d bytes", n)
	}
	t.Logf("%d-byte file inline: %v (reply %d bytes)", len(big), e["message"], n)
}
