package mcp

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
)

// progressCall sends tools/call id for dvv_files with args (and, when token
// is not empty, _meta.progressToken) and reads up to its answer, returning
// the answer and the progress notifications that came before it. seen, when
// set, is called on each notification as it arrives.
func progressCall(t *testing.T, p *rpcPeer, id int, args map[string]any, token string, seen func(map[string]any)) (map[string]any, []map[string]any) {
	t.Helper()
	params := map[string]any{"name": "dvv_files", "arguments": args}
	if token != "" {
		params["_meta"] = map[string]any{"progressToken": token}
	}
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
	p.send(t, string(line))
	var notes []map[string]any
	for {
		m := p.next(t)
		if m["method"] == "notifications/progress" {
			np, _ := m["params"].(map[string]any)
			notes = append(notes, np)
			if seen != nil {
				seen(np)
			}
			continue
		}
		if m["id"] == float64(id) {
			return m, notes
		}
	}
}

func toolFailed(m map[string]any) bool {
	res, _ := m["result"].(map[string]any)
	return res == nil || res["isError"] == true
}

// TestFilesProgressNotifications runs the dvvmcp binary over stdio against
// a real dvvd and a real sshd: a files put or get whose tools/call carries
// _meta.progressToken is preceded by notifications/progress with that token
// (bytes rising to the file's size, the size as total, a message); without
// a token there are none. A put fed from a FIFO shows each chunk the test
// releases as a notification while the call is still running.
func TestFilesProgressNotifications(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	b := make([]byte, 6)
	rand.Read(b)
	d := &realDvvd{ID: "test-" + hex.EncodeToString(b), Home: s.Home} // its ~/.ssh trusts and logs in to sshd
	d.Socket = client.SocketPath(d.ID)
	d.restart(t)
	p := startRPCPeer(t, d.Socket)
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"progress-test","version":"1"}}}`)
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

	const size = 8 << 20
	data := make([]byte, size)
	rand.Read(data)
	local := filepath.Join(t.TempDir(), "big.bin")
	if err := os.WriteFile(local, data, 0o600); err != nil {
		t.Fatal(err)
	}
	remote := filepath.Join(s.RemoteHome, "big.bin")
	checkNotes := func(what, token string, notes []map[string]any) {
		t.Helper()
		if len(notes) == 0 {
			t.Fatalf("%s: no notifications/progress before the answer", what)
		}
		prev := -1.0
		for _, n := range notes {
			got, _ := n["progress"].(float64)
			if n["progressToken"] != token || got < prev {
				t.Errorf("%s: notification %v (after progress %v)", what, n, prev)
			}
			prev = got
		}
		last := notes[len(notes)-1]
		msg, _ := last["message"].(string)
		if last["progress"] != float64(size) || last["total"] != float64(size) || !strings.Contains(msg, "8.0 MiB of 8.0 MiB") {
			t.Errorf("%s: the last notification is not the whole file: %v", what, last)
		}
		t.Logf("%s: %d notifications, the last %v", what, len(notes), last)
	}

	m, notes := progressCall(t, p, 10, map[string]any{"limbId": limbID, "action": "put", "from": local, "path": remote}, "up-1", nil)
	if toolFailed(m) {
		t.Fatalf("put: %v", m)
	}
	checkNotes("put", "up-1", notes)
	if got, err := os.ReadFile(remote); err != nil || len(got) != size {
		t.Fatalf("the server holds %d bytes (%v)", len(got), err)
	}
	back := filepath.Join(t.TempDir(), "back.bin")
	m, notes = progressCall(t, p, 11, map[string]any{"limbId": limbID, "action": "get", "path": remote, "to": back}, "down-2", nil)
	if toolFailed(m) {
		t.Fatalf("get: %v", m)
	}
	checkNotes("get", "down-2", notes)

	// No token, no notification.
	if m, notes := progressCall(t, p, 12, map[string]any{"limbId": limbID, "action": "put", "from": local, "path": remote}, "", nil); toolFailed(m) || len(notes) != 0 {
		t.Fatalf("put without a token: %d notifications, answer %v", len(notes), m)
	}
	if m, notes := progressCall(t, p, 13, map[string]any{"limbId": limbID, "action": "list", "path": s.RemoteHome}, "ls-3", nil); toolFailed(m) || len(notes) != 0 {
		t.Fatalf("a list with a token: %d notifications, answer %v", len(notes), m)
	}

	// Paced: each chunk written to the FIFO is announced before the next
	// is written, so the notifications come while the call runs.
	fifo := filepath.Join(t.TempDir(), "slow")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	const chunk, chunks = 256 << 10, 4
	written := 0
	write := func() {
		written++
		go w.Write(make([]byte, chunk)) // waits for room while dvvd reads
	}
	write()
	m, notes = progressCall(t, p, 14, map[string]any{"limbId": limbID, "action": "put", "from": fifo, "path": filepath.Join(s.RemoteHome, "paced.bin")}, "paced-4",
		func(n map[string]any) {
			if got, _ := n["progress"].(float64); got >= float64(written*chunk) && written <= chunks {
				if written == chunks {
					written++
					w.Close() // the end of the file: the put can finish
					return
				}
				write()
			}
		})
	if toolFailed(m) {
		t.Fatalf("paced put: %v", m)
	}
	if len(notes) < chunks {
		t.Fatalf("paced put: %d notifications for %d chunks", len(notes), chunks)
	}
	if last := notes[len(notes)-1]; last["progress"] != float64(chunks*chunk) || last["total"] != nil {
		t.Errorf("paced put: last notification %v, want %d bytes and no total (a FIFO has no size)", last, chunks*chunk)
	}
	t.Logf("paced put: %d notifications", len(notes))
}
