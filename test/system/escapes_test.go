package system_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// evil is what a hostile server or client puts in text dvv shows: it
// retitles the terminal, clears it and draws a fake prompt.
const evil = "\x1b]0;OWNED\a\x1b[2J\r\n$ sudo rm -rf ~ \x9b31m \u009b32m"

// rfbServer answers each connection with an RFB 3.8 handshake that serve
// finishes after the version exchange.
func rfbServer(t *testing.T, serve func(c net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.Write([]byte("RFB 003.008\n"))
				if _, err := io.ReadFull(c, make([]byte, 12)); err != nil {
					return
				}
				serve(c)
			}()
		}
	}()
	return l.Addr().String()
}

// rfbString is a U32 length and the bytes.
func rfbString(s string) []byte {
	return binary.BigEndian.AppendUint32(nil, uint32(len(s))) // then s
}

// refusingRFB offers no security type and gives evil as the reason.
func refusingRFB(t *testing.T) string {
	return rfbServer(t, func(c net.Conn) {
		c.Write(append(append([]byte{0}, rfbString(evil)...), evil...))
	})
}

// namingRFB completes the handshake (security None) with evil as the
// desktop name, then reads whatever the client says.
func namingRFB(t *testing.T) string {
	return rfbServer(t, func(c net.Conn) {
		buf := make([]byte, 1)
		c.Write([]byte{1, 1})
		if _, err := io.ReadFull(c, buf); err != nil {
			return
		}
		c.Write([]byte{0, 0, 0, 0})
		if _, err := io.ReadFull(c, buf); err != nil {
			return
		}
		init := []byte{0, 64, 0, 64, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 0, 8, 16, 0, 0, 0}
		c.Write(append(append(init, rfbString(evil)...), evil...))
		io.Copy(io.Discard, c)
	})
}

// noControls fails when r printed any control byte other than newline
// and tab, or the C1 CSI: what a terminal would obey.
func noControls(t *testing.T, r result) {
	t.Helper()
	for name, s := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
		for i := 0; i < len(s); i++ {
			if b := s[i]; (b < 0x20 && b != '\n' && b != '\t') || b == 0x7f {
				t.Fatalf("%s holds control byte %#x at %d: %q", name, b, i, s)
			}
		}
		if strings.Contains(s, "\u009b") {
			t.Fatalf("%s holds a C1 CSI: %q", name, s)
		}
		if strings.Contains(s, "\n$ sudo") {
			t.Fatalf("%s draws a fake prompt on a line of its own: %q", name, s)
		}
	}
}

// TestHostileServerTextIsEscaped: a VNC server's failure reason and
// desktop name reach the owner's terminal escaped (ESC shown as \x1b)
// from open, status and limbs, never as the bytes that retitle and clear
// it; --json carries them exactly, as JSON escapes.
func TestHostileServerTextIsEscaped(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")

	r := d.dvv("open", refusingRFB(t), "--protocol", "vnc", "--wait", "--keep")
	if r.code == 0 {
		t.Fatalf("a server that offers no security type was opened: %v", r)
	}
	noControls(t, r)
	if !strings.Contains(r.stderr, `\x1b]0;OWNED`) {
		t.Errorf("the server's reason is not shown escaped: %v", r)
	}
	limbs := d.dvv("limbs")
	noControls(t, limbs)
	refused := strings.Fields(limbs.stdout)
	if len(refused) < 8 {
		t.Fatalf("limbs: %v", limbs)
	}
	st := d.dvv("status", refused[7])
	noControls(t, st)
	if !strings.Contains(st.stdout, `\x1b]0;OWNED\x07\x1b[2J\r\n$ sudo`) {
		t.Errorf("status does not show the reason escaped: %v", st)
	}

	r = d.must("open", namingRFB(t), "--protocol", "vnc", "--wait")
	noControls(t, r)
	limb := strings.TrimSpace(r.stdout)
	st = d.must("status", limb)
	noControls(t, st)
	if !strings.Contains(st.stdout, `desktop:`) || !strings.Contains(st.stdout, `\x1b]0;OWNED`) {
		t.Errorf("status does not show the desktop name escaped: %v", st)
	}
	// --json is data: the name comes through whole (as a JSON escape).
	js := d.must("status", limb, "--json")
	if o := response(t, js).Observation; o == nil || o.DesktopName != strings.ToValidUTF8(evil, "\uFFFD") {
		t.Errorf("--json desktop name: %v", js)
	}
	noControls(t, d.must("limbs"))
}

// TestSessionNameAndLeaseReasonValidated: an agent holding only an
// operator token cannot make its session name or lease reason a terminal
// escape (or a second line) in what the owner reads: dvvd refuses both
// with BAD_REQUEST and a hint, takes no lease, and the owner's control
// status shows the limb free.
func TestSessionNameAndLeaseReasonValidated(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")
	x := testbed.StartXvnc(t, testbed.XvncOptions{})
	limb := strings.TrimSpace(d.must("open", x.Addr, "--protocol", "vnc", "--wait").stdout)
	secret := strings.TrimSpace(d.must("token", "create", "--role", "operator", "--label", "agent").stdout)
	if i := strings.LastIndex(secret, "dvv_"); i >= 0 {
		secret = strings.Fields(secret[i:])[0]
	}
	agentEnv := []string{"DVV_TOKEN=" + secret}

	for _, session := range []string{evil, "agent\nfake line", strings.Repeat("a", 200)} {
		r := d.run(session, "", agentEnv, "control", "acquire", limb)
		wantExit(t, r, wire.ExitUsage, wire.BadRequest)
		noControls(t, r)
		if !strings.Contains(r.stderr, "next:") || !strings.Contains(r.stderr, "DVV_SESSION") {
			t.Errorf("the refusal of session %q has no hint naming DVV_SESSION: %v", session, r)
		}
	}
	for _, reason := range []string{evil, "line one\nline two", strings.Repeat("r", 300)} {
		r := d.run("agent", "", agentEnv, "control", "acquire", limb, "--reason", reason)
		wantExit(t, r, wire.ExitUsage, wire.BadRequest)
		noControls(t, r)
		if !strings.Contains(r.stderr, "next:") {
			t.Errorf("the refusal of reason %q has no hint: %v", reason, r)
		}
	}
	// Nothing was taken: the owner sees the limb free.
	st := d.must("control", "status", limb)
	noControls(t, st)
	if !strings.Contains(st.stdout, "free") {
		t.Errorf("a refused acquire left a lease: %v", st)
	}
	// An ordinary name and reason still work, and show as given.
	d.run("agent-7", "", agentEnv, "control", "acquire", limb, "--reason", "filling the form — step 2")
	st = d.must("control", "status", limb)
	if !strings.Contains(st.stdout, "held by agent-7 — filling the form — step 2") {
		t.Errorf("control status: %v", st)
	}
}

// TestClipboardEscapedOnTerminalRawInPipe: a remote clipboard holding an
// escape sequence (set by an X application on the server) is printed by
// `dvv clipboard get` escaped when stdout is a terminal, and byte for
// byte into a pipe, as data.
func TestClipboardEscapedOnTerminalRawInPipe(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")
	x, limb := openVNC(t, d)
	const clip = "copied \x1b]0;OWNED\a\x1b[2J text"
	// xclip owns the CLIPBOARD selection on the server's display until the test ends.
	set := x.Command("xclip", "-selection", "clipboard", "-loops", "0")
	set.Stdin = strings.NewReader(clip)
	testbed.Start(t, "xclip", set)

	var piped result
	testbed.Eventually(t, 15*time.Second, "the clipboard in dvv", func() bool {
		piped = d.dvv("clipboard", "get", limb)
		return piped.code == 0 && strings.Contains(piped.stdout, "copied")
	})
	if piped.stdout != clip+"\n" {
		t.Errorf("into a pipe the clipboard is not byte for byte: %q", piped.stdout)
	}

	master, slave := openPTY(t)
	cmd := exec.Command(dvvBin, "clipboard", "get", limb)
	cmd.Env = append(append([]string{}, d.env...), "DVV_SESSION=shell-a")
	cmd.Stdout, cmd.Stderr = slave, slave
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	seen, _ := io.ReadAll(master) // ends with EIO once the last terminal side is closed
	if bytes.ContainsAny(seen, "\x1b\a") || !bytes.Contains(seen, []byte(`copied \x1b]0;OWNED\x07\x1b[2J text`)) {
		t.Errorf("on a terminal the clipboard is not escaped: %q", seen)
	}
}

// openPTY opens a pseudo-terminal: its master and terminal sides.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open a pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("name the pseudo-terminal: %v", err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open the terminal side: %v", err)
	}
	return master, slave
}
