package system_test

import (
	"bufio"
	"encoding/json"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/internal/wiretest"
	"github.com/dvvhq/dvv/pkg/wire"
)

// tokenFor creates a token with the owner's shell and returns its secret.
func tokenFor(t *testing.T, d *daemon, args ...string) string {
	t.Helper()
	r := d.must(append([]string{"token", "create"}, args...)...)
	return strings.TrimSpace(r.stdout)
}

// as runs dvv in its own shell session with a token.
func (d *daemon) as(session, token string, args ...string) result {
	return d.run(session, "", []string{"DVV_TOKEN=" + token}, args...)
}

// TestPersonHoldStopsAgentsClosingTheLimb: once a person has taken over a
// limb, an agent's close, reconnect, group close and group shrink on it
// answer LEASE_REVOKED with human_took_over, and the limb stays up.
func TestPersonHoldStopsAgentsClosingTheLimb(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")
	x, limb := openVNC(t, d)
	agent := tokenFor(t, d, "--role", "operator", "--label", "agent")

	r := d.as("shell-agent", agent, "group", "open", "--address", x.Addr, "--protocol", "vnc", "--json")
	if r.code != 0 {
		t.Fatal(r)
	}
	gid := response(t, r).Group.GroupID
	if r := d.as("shell-agent", agent, "control", "acquire", limb); r.code != 0 {
		t.Fatal(r)
	}
	d.must("control", "takeover", limb)

	for _, args := range [][]string{{"close", limb}, {"reconnect", limb}, {"group", "shrink", gid, "1"}, {"group", "close", gid}} {
		r := d.as("shell-agent", agent, append(args, "--json")...)
		resp := response(t, r)
		if r.code != wire.ExitLease || resp.Code != wire.LeaseRevoked {
			t.Errorf("agent %v while a person holds the limb: %v", args, r)
			continue
		}
		if resp.Observation == nil || !resp.Observation.Lease.HumanTookOver {
			t.Errorf("agent %v: the answer does not say a person took over: %v", args, r)
		}
	}
	if o := status(t, d, "shell-a", limb); o.State != wire.StateConnected || o.Reconnects != 0 {
		t.Errorf("the limb was touched: %+v", o)
	}
	if r := d.must("group", "ls", gid); !strings.Contains(r.stdout, limb) {
		t.Errorf("the group lost its member: %v", r)
	}
	// The person may close it.
	d.must("close", limb)
}

// TestRevokedTokenReleasesItsLeases: revoking a token frees the leases its
// attachments held, so another agent can acquire at once.
func TestRevokedTokenReleasesItsLeases(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")
	_, limb := openVNC(t, d)
	first := tokenFor(t, d, "--role", "operator", "--label", "first")
	second := tokenFor(t, d, "--role", "operator", "--label", "second")
	if r := d.as("shell-first", first, "control", "acquire", limb); r.code != 0 {
		t.Fatal(r)
	}
	wantExit(t, d.as("shell-second", second, "control", "acquire", limb), wire.ExitLease, wire.LeaseNotHeld)
	list := response(t, d.must("token", "ls", "--json"))
	for _, tok := range list.Tokens {
		if tok.Label == "first" {
			d.must("token", "revoke", tok.ID)
		}
	}
	if r := d.as("shell-second", second, "control", "acquire", limb); r.code != 0 {
		t.Fatalf("the revoked token still holds the lease: %v", r)
	}
	wantExit(t, d.as("shell-first", first, "limbs"), wire.ExitDenied, wire.PolicyDenied)
}

// TestEmptyTokenIsAnError: DVV_TOKEN set to "" (as `$(cat missing-file)`
// gives) is refused by dvv and dvvmcp, never taken as the owner's access.
func TestEmptyTokenIsAnError(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")
	r := d.run("shell-empty", "", []string{"DVV_TOKEN="}, "ping")
	wantExit(t, r, wire.ExitDenied, wire.PolicyDenied)
	if !strings.Contains(r.stderr, "DVV_TOKEN") || !strings.Contains(r.stderr, "unset") {
		t.Errorf("the message does not say what to do: %v", r)
	}
	out := mcpCall(t, append(append([]string{}, d.env...), "DVV_TOKEN="), "dvv_limbs")
	if !strings.Contains(out, string(wire.PolicyDenied)) || !strings.Contains(out, "DVV_TOKEN") {
		t.Errorf("dvvmcp with an empty DVV_TOKEN: %s", out)
	}
}

// TestSavedHostOpensOnlyAtItsEndpoint: a token without hosts.write cannot
// send a saved host's credential to another port; the port it names is
// never dialled. The owner can.
func TestSavedHostOpensOnlyAtItsEndpoint(t *testing.T) {
	kr := testbed.StartKeyring(t) // sets env: cannot be parallel
	d := startDaemon(t, kr.BusAddress)
	x := testbed.StartXvnc(t, testbed.XvncOptions{})
	_, savedPort, _ := net.SplitHostPort(x.Addr)
	if r := d.run("shell-a", "lab-password\n", nil, "hosts", "add", "lab", "--address", "127.0.0.1", "--port", savedPort, "--protocol", "vnc", "--password-stdin"); r.code != 0 {
		t.Fatal(r)
	}
	hostID := response(t, d.must("hosts", "--json")).Hosts[0].ID

	// The port an attacker would pick: a listener that counts who dials it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var dialled atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			dialled.Add(1)
			c.Close()
		}
	}()
	evil := ln.Addr().(*net.TCPAddr).Port

	operator := tokenFor(t, d, "--role", "operator", "--label", "op")
	open := func(token string) *wiretest.Response {
		t.Helper()
		c, err := net.Dial("unix", d.socket)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		r := bufio.NewReader(c)
		c.SetDeadline(time.Now().Add(20 * time.Second))
		roundTrip := func(line string) *wiretest.Response {
			if _, err := c.Write([]byte(line + "\n")); err != nil {
				t.Fatal(err)
			}
			b, err := r.ReadBytes('\n')
			if err != nil {
				t.Fatal(err)
			}
			var resp wiretest.Response
			json.Unmarshal(b, &resp)
			return &resp
		}
		if token != "" {
			if a := roundTrip(`{"op":"attach","token":` + strconv.Quote(token) + `}`); a.Result != wire.OpAttach {
				t.Fatalf("attach: %+v", a)
			}
		}
		return roundTrip(`{"op":"open","hostId":"` + hostID + `","port":` + strconv.Itoa(evil) + `}`)
	}
	resp := open(operator)
	if resp.Code != wire.PolicyDenied || !strings.Contains(resp.Message, "hosts.write") {
		t.Fatalf("operator port override: %+v", resp)
	}
	// Its own endpoint still opens for the operator.
	if r := d.as("shell-op", operator, "open", "lab"); r.code != 0 {
		t.Fatal(r)
	}
	if n := dialled.Load(); n != 0 {
		t.Fatalf("the overriding port was dialled %d times", n)
	}
	// The owner (hosts.write) may point the host elsewhere.
	if resp := open(""); resp.Result != wire.OpOpen {
		t.Fatalf("owner port override: %+v", resp)
	}
	testbed.Eventually(t, 10*time.Second, "the owner's override to dial", func() bool { return dialled.Load() > 0 })

	// A second saved host on the same endpoint with another account is
	// refused rather than sending its password under the first one's user.
	if r := d.run("shell-a", "other-password\n", nil, "hosts", "add", "lab2", "--address", "127.0.0.1", "--port", savedPort, "--protocol", "vnc", "--user", "bob", "--password-stdin"); r.code != 0 {
		t.Fatal(r)
	}
	r := d.dvv("open", "lab2")
	wantExit(t, r, wire.ExitUsage, wire.BadRequest)
	if !strings.Contains(r.stderr, "another account") {
		t.Errorf("open lab2: %v", r)
	}
	// The same host again (its password updated) is the same account: fine.
	if r := d.run("shell-a", "lab-password-2\n", nil, "hosts", "add", "lab", "--address", "127.0.0.1", "--port", savedPort, "--protocol", "vnc", "--password-stdin"); r.code != 0 {
		t.Fatal(r)
	}
	d.must("open", "lab")
}
