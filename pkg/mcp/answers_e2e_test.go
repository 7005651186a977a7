package mcp

import (
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dvvhq/dvv/internal/testbed"
)

// openXvncLimb opens a perceiving limb on a fresh Xvnc through the bridge
// and waits until it is connected.
func openXvncLimb(t *testing.T, vnc *testbed.VNC, cs *sdk.ClientSession) string {
	t.Helper()
	open := call(t, cs, "dvv_open", map[string]any{"address": "127.0.0.1", "port": vnc.Port, "protocol": "vnc", "perceive": true})
	limbID, _ := structuredOf(t, open)["limbId"].(string)
	if open.IsError || limbID == "" {
		t.Fatalf("open: %s", texts(open))
	}
	if w := call(t, cs, "dvv_wait", map[string]any{"limbId": limbID, "until": "connected", "timeoutMs": 20000}); w.IsError {
		t.Fatalf("wait connected: %s", texts(w))
	}
	return limbID
}

// TestDispatchNoteOnlyOnActs: the "dispatch only" caveat is for input sent
// to the remote (click, type, key, term_send), not for control or close,
// whose answers are the whole truth.
func TestDispatchNoteOnlyOnActs(t *testing.T) {
	t.Parallel()
	vnc := testbed.StartXvnc(t, testbed.XvncOptions{})
	d := startDvvd(t)
	_, cs := connectBridge(t, Options{Socket: d.Socket}, "notes-agent")
	limbID := openXvncLimb(t, vnc, cs)
	acq := call(t, cs, "dvv_control", map[string]any{"limbId": limbID, "action": "acquire"})
	if acq.IsError || strings.Contains(texts(acq), "dispatch only") || !strings.Contains(texts(acq), "lease acquired") {
		t.Errorf("control acquire: %q", texts(acq))
	}
	var gen float64
	testbed.Eventually(t, 15*time.Second, "a screen with pixels", func() bool {
		scr := call(t, cs, "dvv_screen", map[string]any{"limbId": limbID})
		sc, _ := structuredOf(t, scr)["screen"].(map[string]any)
		gen, _ = sc["generation"].(float64)
		return !scr.IsError
	})
	mv := call(t, cs, "dvv_click", map[string]any{"limbId": limbID, "action": "move", "x": 20, "y": 30, "generation": gen})
	// An act says what its answer saw of the effect (verified or
	// unverified, with why: a fresh desktop may still be painting).
	if mv.IsError || !strings.Contains(texts(mv), "dispatched move") || !strings.Contains(texts(mv), "verified: ") {
		t.Errorf("click: %q", texts(mv))
	}
	cl := call(t, cs, "dvv_close", map[string]any{"limbId": limbID})
	if cl.IsError || strings.Contains(texts(cl), "dispatch only") || strings.Contains(texts(cl), "verified") {
		t.Errorf("close: %q", texts(cl))
	}
}
