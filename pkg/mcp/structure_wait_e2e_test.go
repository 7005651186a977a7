package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestStructureWaitThroughTheBridge: with --tools structure an agent waits
// on the desktop's structure through dvvd's wait: for a window that appears
// after the wait began (its id the X server's, as xdotool finds it), for an
// entry's text set through dvv_element (the text the program prints on OK),
// and for the window gone; the reference dvv_wait still refuses those
// conditions.
func TestStructureWaitThroughTheBridge(t *testing.T) {
	s := testbed.StartDesktopSession(t, testbed.DesktopSessionOptions{Cookie: true})
	t.Setenv("SSH_AUTH_SOCK", "")
	b := make([]byte, 6)
	rand.Read(b)
	d := &realDvvd{ID: "test-" + hex.EncodeToString(b), Home: s.SSHD.Home}
	d.Socket = client.SocketPath(d.ID)
	d.restart(t)
	// The sidecar is a saved host's: save it over the socket, as `dvv hosts add` does.
	c, err := client.Dial(context.Background(), d.Socket, client.Options{Name: "hosts"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.HostAdd(context.Background(), wire.HostAddArgs{Host: wire.HostSpec{Name: "session", Protocol: "vnc",
		Address: "127.0.0.1", Port: s.Port, SSHPort: s.SSHD.Port, SSHUser: s.SSHD.User}}); err != nil {
		t.Fatal(err)
	}
	_, cs := connectBridge(t, Options{Socket: d.Socket, Sets: []string{"structure"}}, "structure-agent")
	open := call(t, cs, "dvv_open", map[string]any{"hostId": "session", "perceive": true})
	limb, _ := structuredOf(t, open)["limbId"].(string)
	if open.IsError || limb == "" {
		t.Fatalf("open: %s", texts(open))
	}
	if w := call(t, cs, "dvv_wait", map[string]any{"limbId": limb, "until": "connected", "timeoutMs": 20000}); w.IsError {
		t.Fatalf("wait connected: %s", texts(w))
	}
	if r := call(t, cs, "dvv_control", map[string]any{"limbId": limb, "action": "acquire"}); r.IsError {
		t.Fatalf("acquire: %s", texts(r))
	}

	// The window appears while the wait holds.
	appeared := make(chan *sdk.CallToolResult, 1)
	go func() {
		r, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "dvv_structure_wait",
			Arguments: map[string]any{"limbId": limb, "until": "window", "window": "swaitbed", "timeoutMs": 20000}})
		if err != nil {
			t.Errorf("dvv_structure_wait window: protocol error %v", err)
		}
		appeared <- r
	}()
	time.Sleep(300 * time.Millisecond) // usually after the wait's first look found nothing
	prog, xwin := s.Program(t, "swaitbed", "zenity", "--entry", "--title", "swaitbed", "--text", "Answer")
	r := <-appeared
	if r == nil || r.IsError {
		t.Fatalf("dvv_structure_wait window: %v", r)
	}
	checkOutput(t, "dvv_structure_wait", r)
	w, _ := structuredOf(t, r)["wait"].(map[string]any)
	xid, _ := strconv.ParseUint(xwin, 10, 32)
	if w["settled"] != true || !strings.Contains(fmt.Sprint(w["detail"]), fmt.Sprintf("0x%x", xid)) {
		t.Fatalf("until window answered %v; the X server's window is 0x%x", w, xid)
	}

	// The entry, found by a wait on the element, then its text.
	r = call(t, cs, "dvv_structure_wait", map[string]any{"limbId": limb, "until": "element", "window": "swaitbed", "role": "text", "nameContains": "answer", "timeoutMs": 20000})
	w, _ = structuredOf(t, r)["wait"].(map[string]any)
	els, _ := w["elements"].([]any)
	if r.IsError || w["settled"] != true || len(els) != 1 {
		t.Fatalf("until element: %s", texts(r))
	}
	entry, _ := els[0].(map[string]any)["id"].(string)
	t.Logf("until element answered %d bytes of text for one element", len(texts(r))) // the cost line's figure
	if r := call(t, cs, "dvv_element", map[string]any{"limbId": limb, "action": "set-text", "element": entry, "text": "Forty two"}); r.IsError {
		t.Fatalf("set-text: %s", texts(r))
	}
	r = call(t, cs, "dvv_structure_wait", map[string]any{"limbId": limb, "until": "text-equals", "element": entry, "text": "Forty two", "timeoutMs": 20000})
	w, _ = structuredOf(t, r)["wait"].(map[string]any)
	if r.IsError || w["settled"] != true {
		t.Fatalf("until text-equals: %s", texts(r))
	}
	// What the program holds, read by another way than the wait's: its text, over the bus.
	rd := call(t, cs, "dvv_element", map[string]any{"limbId": limb, "action": "read", "element": entry})
	if el, _ := structuredOf(t, rd)["element"].(map[string]any); el["text"] != "Forty two" {
		t.Fatalf("read after the wait: %s", texts(rd))
	}
	r = call(t, cs, "dvv_structure_wait", map[string]any{"limbId": limb, "until": "text-contains", "element": entry, "text": "never typed", "timeoutMs": 600})
	if w, _ = structuredOf(t, r)["wait"].(map[string]any); r.IsError || w["settled"] != false {
		t.Fatalf("until text-contains for text not there: %s", texts(r))
	}
	// The program itself holds that text: OK makes zenity print its entry.
	r = call(t, cs, "dvv_structure_wait", map[string]any{"limbId": limb, "until": "element", "window": "swaitbed", "role": "push button", "nameContains": "OK", "timeoutMs": 20000})
	w, _ = structuredOf(t, r)["wait"].(map[string]any)
	if els, _ = w["elements"].([]any); r.IsError || len(els) != 1 {
		t.Fatalf("until element (OK): %s", texts(r))
	}
	ok, _ := els[0].(map[string]any)["id"].(string)
	if r := call(t, cs, "dvv_element", map[string]any{"limbId": limb, "action": "invoke", "element": ok}); r.IsError {
		t.Fatalf("invoke OK: %s", texts(r))
	}
	testbed.Eventually(t, 15*time.Second, "zenity to print the entry", func() bool {
		b, _ := os.ReadFile(prog.Log)
		return slices.Contains(strings.Split(string(b), "\n"), "Forty two")
	})
	// Its window gone, a wait for that settles.
	r = call(t, cs, "dvv_structure_wait", map[string]any{"limbId": limb, "until": "window-gone", "window": fmt.Sprintf("0x%x", xid), "timeoutMs": 20000})
	if w, _ = structuredOf(t, r)["wait"].(map[string]any); r.IsError || w["settled"] != true {
		t.Fatalf("until window-gone: %s", texts(r))
	}

	// Screen conditions stay dvv_wait's; structure conditions are not dvv_wait's.
	if r := call(t, cs, "dvv_structure_wait", map[string]any{"limbId": limb, "until": "screen-stable"}); errorCode(t, r) != "BAD_REQUEST" {
		t.Fatalf("dvv_structure_wait until screen-stable: %s", texts(r))
	}
	if r := call(t, cs, "dvv_wait", map[string]any{"limbId": limb, "until": "window", "timeoutMs": 100}); errorCode(t, r) != "BAD_REQUEST" {
		t.Fatalf("dvv_wait until window: %s", texts(r))
	}
}
