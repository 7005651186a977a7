package system_test

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestEncodedPasswordsAreRefused: every way of slipping a password into an
// address (percent-encoded user-info, a password where the port goes, one
// in a query, a user that carries ":password") is BAD_REQUEST from dvv and
// from dvvd for any client, before it is stored, logged or dialled: no
// limb, no saved host, and neither dvvd's log nor `dvv report` holds it.
func TestEncodedPasswordsAreRefused(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")
	const pw = "Xq9-enc0ded-pw"
	for _, args := range [][]string{
		{"open", "vnc://pat%3A" + pw + "@127.0.0.1:5972"},
		{"open", "pat%3A" + pw + "@127.0.0.1", "--protocol", "ssh"},
		{"open", "127.0.0.1:" + pw, "--protocol", "vnc"},
		{"open", "vnc://127.0.0.1:" + pw},
		{"open", "ws://127.0.0.1:6080/websockify?password=" + pw},
		{"open", "wss://127.0.0.1/websockify#" + pw},
		{"open", "127.0.0.1", "--protocol", "ssh", "--user", "pat:" + pw},
		{"group", "open", "--address", "127.0.0.1:" + pw, "--protocol", "vnc"},
		{"hosts", "add", "lab", "--address", "127.0.0.1:" + pw, "--protocol", "vnc"},
		{"hosts", "add", "lab", "--address", "127.0.0.1", "--protocol", "vnc", "--user", "pat:" + pw},
		{"hosts", "add", "lab", "--address", "127.0.0.1", "--protocol", "vnc", "--ssh-user", "pat:" + pw},
	} {
		r := d.dvv(args...)
		wantExit(t, r, wire.ExitUsage, wire.BadRequest)
		if strings.Contains(r.stdout+r.stderr, pw) {
			t.Errorf("%v echoed the password: %v", args[:2], r)
		}
	}
	// Any other client (dvvmcp, a script on the socket) is refused by dvvd.
	c := dialRawClient(t, d)
	for _, line := range []string{
		`{"op":"open","protocol":"vnc","address":"pat%3A` + pw + `@127.0.0.1","port":5972}`,
		`{"op":"open","protocol":"vnc","address":"vnc://pat%3a` + pw + `@127.0.0.1"}`,
		`{"op":"open","protocol":"vnc","address":"127.0.0.1:` + pw + `"}`,
		`{"op":"open","protocol":"vnc","address":"ws://127.0.0.1:6080/websockify?token=` + pw + `"}`,
		`{"op":"open","protocol":"ssh","address":"pat:` + pw + `@127.0.0.1"}`,
		`{"op":"group_open","protocol":"vnc","addresses":["127.0.0.1:5901","127.0.0.1:` + pw + `"]}`,
		`{"op":"host_add","host":{"name":"lab","protocol":"vnc","address":"127.0.0.1:` + pw + `"}}`,
		`{"op":"host_add","host":{"name":"lab","protocol":"vnc","address":"127.0.0.1","user":"pat:` + pw + `"}}`,
		`{"op":"host_add","host":{"name":"lab","protocol":"vnc","address":"127.0.0.1","sshUser":"pat:` + pw + `"}}`,
		`{"op":"host_add","host":{"name":"lab","protocol":"vnc","address":"ws://127.0.0.1/w?pw=` + pw + `"}}`,
		`{"op":"host_trust","protocol":"ssh","address":"127.0.0.1:` + pw + `"}`,
	} {
		c.Write([]byte(line + "\n"))
		resp := c.answer(t)
		if resp.Code != wire.BadRequest {
			t.Errorf("%s: %+v", line, resp)
		}
		b, _ := json.Marshal(resp)
		if strings.Contains(string(b), pw) {
			t.Errorf("the answer echoes the password: %s", b)
		}
	}
	limbs := response(t, d.must("limbs", "--json"))
	if len(limbs.Limbs)+len(limbs.Available) != 0 {
		t.Errorf("a refused address made a limb: %+v", limbs)
	}
	if hosts := response(t, d.must("hosts", "--json")); len(hosts.Hosts) != 0 {
		t.Errorf("a refused host was saved: %+v", hosts.Hosts)
	}
	bundle := filepath.Join(t.TempDir(), "report.tar.gz")
	d.must("report", "--out", bundle)
	if files := reportFiles(t, bundle); strings.Contains(files, pw) {
		t.Error("dvv report carries the password")
	}
	if strings.Contains(d.log(), pw) {
		t.Error("dvvd logged the password")
	}
	if b, _ := os.ReadFile(filepath.Join(d.home, ".config", "dvv", "hosts.json")); strings.Contains(string(b), pw) {
		t.Error("the password was stored with the hosts")
	}
}

// reportFiles is the text of every file in a report bundle.
func reportFiles(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return all.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		all.WriteString("== " + h.Name + "\n")
		io.Copy(&all, tr)
	}
}

// TestSSHUserFromAddress: user@host, ssh://user@host, --user and a group
// address USER@HOST:PORT all log in as that user on a real sshd (whoami
// on the server says so), dvvmcp's dvv_open too; a user the server does not
// know is AUTH_FAILED naming that user, not a host "user@host" retried as
// UNREACHABLE; an address that cannot be a host is BAD_REQUEST at once,
// with no limb left behind.
func TestSSHUserFromAddress(t *testing.T) {
	t.Parallel()
	s := testbed.StartSSHD(t)
	d := startDaemonIn(t, "", s.Home)
	port := strconv.Itoa(s.Port)
	whoami := func(limb string) string {
		t.Helper()
		return strings.TrimSpace(d.must("run", limb, "--timeout", "10s", "whoami").stdout)
	}
	for _, args := range [][]string{
		{"open", s.User + "@127.0.0.1", "--protocol", "ssh", "--port", port},
		{"open", "ssh://" + s.User + "@127.0.0.1:" + port},
		{"open", "127.0.0.1:" + port, "--protocol", "ssh", "--user", s.User},
	} {
		r := d.must(args...)
		limb := strings.TrimSpace(r.stdout)
		if o := status(t, d, "shell-a", limb); o.Address != "127.0.0.1" || o.Port != s.Port {
			t.Errorf("%v: the limb's endpoint is %s:%d", args, o.Address, o.Port)
		}
		if who := whoami(limb); who != s.User {
			t.Errorf("%v: logged in as %q, want %q", args, who, s.User)
		}
		d.must("close", limb)
	}

	// A user the server does not have: the server refuses that user.
	r := d.dvv("open", "nosuchuser@127.0.0.1", "--protocol", "ssh", "--port", port, "--wait-timeout", "20s")
	wantExit(t, r, wire.ExitDenied, wire.AuthFailed)
	if !strings.Contains(r.stderr, "nosuchuser@") {
		t.Errorf("the refusal does not name the user: %v", r)
	}

	// A group member USER@HOST:PORT.
	r = d.must("group", "open", "--address", s.User+"@127.0.0.1:"+port, "--protocol", "ssh", "--json")
	g := response(t, r)
	if g.Group == nil || len(g.Group.Members) != 1 {
		t.Fatalf("group open: %v", r)
	}
	if who := strings.TrimSpace(d.must("run", g.Group.GroupID+"/0", "--timeout", "10s", "whoami").stdout); who != s.User {
		t.Errorf("group member logged in as %q", who)
	}
	d.must("group", "close", g.Group.GroupID)

	// dvvmcp's dvv_open takes the same address.
	out := mcpTool(t, d.env, "dvv_open", `{"address":"`+s.User+`@127.0.0.1","port":`+port+`,"protocol":"ssh"}`)
	var limbID string
	if i := strings.Index(out, `ssh-`); i >= 0 {
		limbID = out[i : i+len("ssh-")+8]
	}
	if limbID == "" {
		t.Fatalf("dvv_open: %s", out)
	}
	d.must("wait", limbID, "--until", "connected", "--timeout", "15s")
	if who := whoami(limbID); who != s.User {
		t.Errorf("dvv_open logged in as %q", who)
	}
	d.must("close", limbID)

	// Not a host name, even with the user taken out: refused at once.
	for _, args := range [][]string{
		{"open", "pat@bad host", "--protocol", "ssh"},
		{"open", "pat@@127.0.0.1", "--protocol", "ssh"},
		{"open", "ssh://pat@127.0.0.1/home", "--protocol", "ssh"},
		{"open", "pat@127.0.0.1", "--protocol", "vnc"},
	} {
		wantExit(t, d.dvv(args...), wire.ExitUsage, wire.BadRequest)
	}
	c := dialRawClient(t, d)
	for _, addr := range []string{"pat@bad host", "pat@-oProxyCommand=x", "a@b@127.0.0.1", "pat@"} {
		b, _ := json.Marshal(wire.OpenArgs{Address: addr, Protocol: "ssh"})
		line := strings.Replace(string(b), "{", `{"op":"open",`, 1)
		c.Write([]byte(line + "\n"))
		if resp := c.answer(t); resp.Code != wire.BadRequest {
			t.Errorf("open %q: %+v", addr, resp)
		}
	}
	// Every limb above was closed; the failed logins closed their own.
	if l := response(t, d.must("limbs", "--json")); len(l.Limbs)+len(l.Available) != 0 {
		t.Errorf("limbs left behind: %+v %+v", l.Limbs, l.Available)
	}
}

// TestHostsAddSplitsThePort: `dvv hosts add NAME --address HOST:PORT` saves
// the port as the host's port (never "[HOST:PORT]:5900") and opens on a
// real Xvnc there; a port in the address that contradicts --port is
// refused with the advice to give it once.
func TestHostsAddSplitsThePort(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")
	x := testbed.StartXvnc(t, testbed.XvncOptions{})
	r := d.must("hosts", "add", "lab", "--address", x.Addr, "--protocol", "vnc", "--json")
	h := response(t, r).Hosts
	if len(h) != 1 || h[0].Address != "127.0.0.1" || h[0].Port != x.Port {
		t.Fatalf("saved as %+v", h)
	}
	if out := d.must("hosts").stdout; strings.Contains(out, "[") {
		t.Errorf("hosts shows a bracketed address: %s", out)
	}
	limb := strings.TrimSpace(d.must("open", "lab", "--perceive").stdout)
	if o := status(t, d, "shell-a", limb); o.State != wire.StateConnected || o.Port != x.Port {
		t.Errorf("open lab: %+v", o)
	}
	r = d.dvv("hosts", "add", "lab2", "--address", x.Addr, "--port", "5901", "--protocol", "vnc")
	wantExit(t, r, wire.ExitUsage, "")
	if !strings.Contains(r.stderr, "--port") {
		t.Errorf("no --port advice: %v", r)
	}
	// The same through the socket: dvvd splits it too.
	c := dialRawClient(t, d)
	c.Write([]byte(`{"op":"host_add","host":{"name":"lab3","protocol":"vnc","address":"` + x.Addr + `"}}` + "\n"))
	if resp := c.answer(t); len(resp.Hosts) != 1 || resp.Hosts[0].Address != "127.0.0.1" || resp.Hosts[0].Port != x.Port {
		t.Errorf("host_add over the socket: %+v", resp)
	}
}

// mcpTool starts dvvmcp, calls one tool with arguments and returns the
// tool call's answer line.
func mcpTool(t *testing.T, env []string, tool, args string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, dvvmcpBin)
	cmd.Env = env
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer in.Close()
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`}}`+"\n")
	r := bufio.NewReader(outPipe)
	for {
		line, err := r.ReadString('\n')
		if strings.HasPrefix(line, `{"jsonrpc":"2.0","id":2,`) {
			return line
		}
		if err != nil {
			return "dvvmcp ended without answering: " + err.Error()
		}
	}
}

// freeDisplay is a VNC display number N below 100 whose port 5900+N is
// free on 127.0.0.1 right now, so an Xvnc can be started on it.
func freeDisplay(t *testing.T) int {
	t.Helper()
	start := os.Getpid() % 100 // tests running at once start from different numbers
	for i := range 100 {
		n := (start + i) % 100
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(5900+n))
		if err == nil {
			l.Close()
			return n
		}
	}
	testbed.Unavailable(t, "every port 5900-5999 is taken")
	return 0
}

// TestVNCAddressHabits: the addresses vncviewer and vncdotool take reach
// the real Xvnc they name. HOST::PORT is a port; HOST:N below 100 is
// display N on port 5900+N, and open says so (human output and --json's
// dispatched); the same from a raw socket client and a group member. The
// server behind each limb is the one started here: its chosen size is
// what the limb sees.
func TestVNCAddressHabits(t *testing.T) {
	t.Parallel()
	n := freeDisplay(t)
	x := testbed.StartXvnc(t, testbed.XvncOptions{Port: 5900 + n, Width: 712, Height: 534})
	d := startDaemon(t, "")
	sameServer := func(limb string, port int) {
		t.Helper()
		o := status(t, d, "shell-a", limb)
		if o.Port != port || o.Geometry.Width != 712 || o.Geometry.Height != 534 {
			t.Fatalf("limb %s: port %d, size %dx%d; want port %d and the Xvnc's 712x534", limb, o.Port, o.Geometry.Width, o.Geometry.Height, port)
		}
	}

	// HOST::PORT, as vncviewer 127.0.0.1::5960 writes it.
	r := d.must("open", "127.0.0.1::"+strconv.Itoa(x.Port), "--protocol", "vnc", "--perceive")
	limb := strings.TrimSpace(r.stdout)
	sameServer(limb, x.Port)
	d.must("close", limb)

	// HOST:N, display N: the port is 5900+N and the answer says so.
	want := "display " + strconv.Itoa(n) + " → port " + strconv.Itoa(x.Port)
	r = d.must("open", "127.0.0.1:"+strconv.Itoa(n), "--protocol", "vnc")
	if !strings.Contains(r.stderr, want) {
		t.Errorf("open 127.0.0.1:%d does not say %q: %v", n, want, r)
	}
	limb = strings.TrimSpace(r.stdout)
	sameServer(limb, x.Port)
	d.must("close", limb)
	r = d.must("open", "127.0.0.1:"+strconv.Itoa(n), "--protocol", "vnc", "--json")
	if resp := response(t, r); resp.Dispatched != want {
		t.Errorf("open --json: dispatched %q, want %q: %v", resp.Dispatched, want, r)
	} else {
		sameServer(resp.LimbID, x.Port)
		d.must("close", resp.LimbID)
	}

	// Any client of the socket (dvvmcp, a script): dvvd reads both forms.
	c := dialRawClient(t, d)
	for _, addr := range []string{"127.0.0.1::" + strconv.Itoa(x.Port), "127.0.0.1:" + strconv.Itoa(n)} {
		c.Write([]byte(`{"op":"open","protocol":"vnc","address":"` + addr + `"}` + "\n"))
		resp := c.answer(t)
		if resp.Code != "" || resp.Observation == nil || resp.Observation.Port != x.Port {
			t.Fatalf("raw open %s: %+v", addr, resp)
		}
		d.must("wait", resp.LimbID, "--until", "connected", "--timeout", "15s")
		sameServer(resp.LimbID, x.Port)
		d.must("close", resp.LimbID)
	}

	// A group member by display.
	g := response(t, d.must("group", "open", "--address", "127.0.0.1:"+strconv.Itoa(n), "--protocol", "vnc", "--json"))
	if g.Group == nil || len(g.Group.Members) != 1 {
		t.Fatalf("group open by display: %+v", g)
	}
	member := g.Group.GroupID + "/0"
	d.must("wait", member, "--until", "connected", "--timeout", "15s")
	sameServer(g.Group.Members[0].LimbID, x.Port)
	d.must("group", "close", g.Group.GroupID)

	// A saved host by display keeps port 5900+N, and says so.
	r = d.must("hosts", "add", "lab", "--address", "127.0.0.1:"+strconv.Itoa(n), "--protocol", "vnc")
	if !strings.Contains(r.stderr, want) {
		t.Errorf("hosts add does not say %q: %v", want, r)
	}
	limb = strings.TrimSpace(d.must("open", "lab").stdout)
	sameServer(limb, x.Port)

	// HOST::PORT is VNC's alone.
	wantExit(t, d.dvv("open", "127.0.0.1::22", "--protocol", "ssh"), wire.ExitUsage, wire.BadRequest)
}
