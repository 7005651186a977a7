package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestVerifiedActsOnDesktop: a click on a bare root window (nothing drawn,
// nothing to react) is unverified; the same click once an xterm sits under
// it is verified near the point, and typed text is verified by the
// repaint it causes — checked against the xterm's own output file.
func TestVerifiedActsOnDesktop(t *testing.T) {
	v := testbed.StartXvnc(t, testbed.XvncOptions{Width: 640, Height: 480})
	v.Run(t, "xsetroot", "-solid", "#203040")
	d := startDaemon(t)
	c := dial(t, d, "agent")
	id := openVNC(t, c, "127.0.0.1", v.Port)
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "screen-stable", QuietMs: intp(300), TimeoutMs: intp(5000)})

	r := must(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "click", X: intp(500), Y: intp(400), Generation: u64p(1), VerifyMs: intp(400)})
	if vf := r.Verification; vf == nil || vf.Status != wire.VerifyUnverified || vf.WindowMs != 400 || vf.Reason == "" {
		t.Fatalf("click on the bare root: %+v", vf)
	}
	r = must(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "move", X: intp(10), Y: intp(10), Generation: u64p(1), VerifyMs: intp(0)})
	if vf := r.Verification; vf == nil || vf.Status != wire.VerifyDispatched {
		t.Fatalf("verifyMs 0: %+v", vf)
	}

	// An xterm at 0,0 whose tty echoes (the way a shell or an editor shows
	// what is typed), writing each line to a file: the ground truth.
	typed := filepath.Join(t.TempDir(), "typed")
	v.Background(t, "xterm", "-geometry", "80x24+0+0", "-e", "sh", "-c", "exec tee "+typed+" >/dev/null")
	testbed.Eventually(t, 10*time.Second, "the xterm focused", func() bool {
		o, err := v.Command("xdotool", "search", "--class", "xterm").Output()
		if err != nil || len(strings.Fields(string(o))) == 0 {
			return false
		}
		return v.Command("xdotool", "windowfocus", "--sync", strings.Fields(string(o))[0]).Run() == nil
	})
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "screen-stable", QuietMs: intp(300), TimeoutMs: intp(5000)})
	// A click into the xterm, as an agent focuses a window: typing then
	// shows within reach of it, where input goes.
	must(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "click", X: intp(200), Y: intp(100), Generation: u64p(1)})
	r = mustAfterRead(t, c, id, wire.TypeArgs{Target: wire.Target{LimbID: id}, Text: strp("verify me\n")})
	vf := r.Verification
	if vf == nil || vf.Status != wire.VerifyVerified || vf.Where != "input" || vf.Region == nil || vf.WindowMs != wire.DefaultVerifyMs {
		t.Fatalf("typing into the xterm: %+v", vf)
	}
	testbed.Eventually(t, 10*time.Second, "the typed text in the xterm's file", func() bool {
		return strings.Contains(readFile(t, typed), "verify me")
	})
	// RFB has no acknowledgement for clipboard text: the answer says so
	// instead of claiming it arrived.
	r = must(t, c, wire.ClipboardArgs{Target: wire.Target{LimbID: id}, Action: "set", Text: strp("clip")})
	if vf := r.Verification; vf == nil || vf.Status != wire.VerifyDispatched || !strings.Contains(vf.Reason, "no acknowledgement") {
		t.Fatalf("clipboard set on VNC: %+v", vf)
	}
	// A drag-select across the echoed text repaints it in reverse video
	// right where the pointer ends: verified near the point.
	r = must(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "drag", X: intp(2), Y: intp(8), ToX: intp(60), ToY: intp(8), Generation: u64p(1)})
	if vf := r.Verification; vf == nil || vf.Status != wire.VerifyVerified || vf.Where != "near" {
		t.Fatalf("drag-select on the xterm's text: %+v", vf)
	}
}

// TestVerifiedActsOnTerminal: text a shell echoes is verified; text sent to
// a prompt that hides input (read -s) is not, and the answer says why.
func TestVerifiedActsOnTerminal(t *testing.T) {
	s := testbed.StartSSHD(t)
	t.Setenv("HOME", s.Home)
	t.Setenv("SSH_AUTH_SOCK", "")
	d := startDaemon(t)
	c := dial(t, d, "agent")
	r := must(t, c, wire.OpenArgs{Address: s.Host, Port: &s.Port, Protocol: "ssh"})
	id := r.LimbID
	if w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "connected", TimeoutMs: intp(20000)}); !w.Wait.Settled {
		t.Fatalf("ssh limb: %+v", w.Observation)
	}
	must(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "idle", QuietMs: intp(300), TimeoutMs: intp(10000)})

	r = must(t, c, wire.TermSendArgs{Target: wire.Target{LimbID: id}, Text: strp("echo verified-$((6*7))\n"), VerifyMs: intp(3000)})
	if vf := r.Verification; vf == nil || vf.Status != wire.VerifyVerified || !strings.Contains(vf.Reason, "echoed") {
		t.Fatalf("echoed command: %+v", vf)
	}
	if w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "text", Text: strp("verified-42"), TimeoutMs: intp(10000)}); !w.Wait.Settled {
		t.Fatal("the command did not run")
	}
	must(t, c, wire.TermSendArgs{Target: wire.Target{LimbID: id}, Text: strp("read -s -p 'Password: ' pw; echo; echo got-${#pw}\n")})
	if w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "text", Text: strp("Password:"), TimeoutMs: intp(10000)}); !w.Wait.Settled {
		t.Fatal("no password prompt")
	}
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "idle", QuietMs: intp(300), TimeoutMs: intp(10000)})
	r = must(t, c, wire.TermSendArgs{Target: wire.Target{LimbID: id}, Text: strp("hunter2"), VerifyMs: intp(500)})
	if vf := r.Verification; vf == nil || vf.Status != wire.VerifyUnverified || !strings.Contains(vf.Reason, "password") {
		t.Fatalf("hidden input: %+v", vf)
	}
	must(t, c, wire.TermSendArgs{Target: wire.Target{LimbID: id}, Text: strp("\n")})
	if w := must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: id}, Until: "text", Text: strp("got-7"), TimeoutMs: intp(10000)}); !w.Wait.Settled {
		t.Fatal("the hidden input did not arrive")
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, _ := os.ReadFile(path)
	return string(b)
}
