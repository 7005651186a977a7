package system_test

import (
	"bufio"
	"encoding/json"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/internal/wiretest"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestPasswordInAddressIsRefused: a password typed into an address
// (vnc://:pw@host) is refused with advice by dvv before anything is sent,
// and by dvvd for any client; it appears in no answer and no log line, and
// no limb is made of it.
func TestPasswordInAddressIsRefused(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")
	const pw = "Hunter2-in-address"
	for _, args := range [][]string{
		{"open", "vnc://:" + pw + "@127.0.0.1:5972"},
		{"open", "pat:" + pw + "@127.0.0.1", "--protocol", "ssh"},
		{"group", "open", "--address", ":" + pw + "@127.0.0.1:5972", "--protocol", "vnc"},
		{"hosts", "add", "lab", "--address", ":" + pw + "@127.0.0.1", "--protocol", "vnc"},
	} {
		r := d.dvv(args...)
		wantExit(t, r, wire.ExitUsage, wire.BadRequest)
		if strings.Contains(r.stdout+r.stderr, pw) {
			t.Errorf("%v echoed the password: %v", args[:2], r)
		}
		if !strings.Contains(r.stderr, "--password-stdin") {
			t.Errorf("%v: no advice: %v", args[:2], r)
		}
	}
	// Any other client (an MCP bridge, a script on the socket) is refused by dvvd.
	c, err := net.Dial("unix", d.socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	for _, line := range []string{
		`{"op":"open","protocol":"vnc","address":":` + pw + `@127.0.0.1","port":5972}`,
		`{"op":"open","protocol":"vnc","address":"wss://u:` + pw + `@127.0.0.1:6080/websockify"}`,
		`{"op":"group_open","protocol":"vnc","addresses":["127.0.0.1:5901",":` + pw + `@127.0.0.1:5972"]}`,
		`{"op":"host_add","host":{"name":"lab","protocol":"vnc","address":"u:` + pw + `@127.0.0.1"}}`,
		`{"op":"host_trust","protocol":"vnc","address":":` + pw + `@127.0.0.1","port":5972}`,
	} {
		c.Write([]byte(line + "\n"))
		b, err := br.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		var resp wiretest.Response
		json.Unmarshal(b, &resp)
		if resp.Code != wire.BadRequest || strings.Contains(string(b), pw) {
			t.Errorf("%s: %s", line, b)
		}
	}
	if r := d.must("limbs", "--json"); strings.Contains(r.stdout, "vnc-") || strings.Contains(r.stdout, "ssh-") {
		t.Errorf("a limb was made: %v", r)
	}
	if strings.Contains(d.log(), pw) {
		t.Errorf("dvvd logged the password:\n%s", d.log())
	}
}

// TestStoppedIsLogged: on SIGTERM dvvd finishes its shutdown, logs
// "stopped" and exits 0.
func TestStoppedIsLogged(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")
	syscall.Kill(d.proc.Cmd.Process.Pid, syscall.SIGTERM)
	testbed.Eventually(t, 15*time.Second, "dvvd to exit", d.proc.Exited)
	if !strings.Contains(d.log(), "msg=stopped") {
		t.Fatalf("no stopped line:\n%s", d.log())
	}
	if code := d.proc.Cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit status %d", code)
	}
}
