package system_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/internal/wiretest"
	"github.com/dvvhq/dvv/pkg/wire"
)

// The hostile-client suite: clients on dvvd's own socket that try to make
// it hold memory or connection slots. dvvd answers BUSY (or closes what is
// stuck), its RSS stays bounded (read from /proc), and the owner's dvv
// still gets in.

// rssMiB is a process's resident set from /proc.
func rssMiB(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			kib, _ := strconv.Atoi(strings.Fields(line)[1])
			return kib / 1024
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// rawClient is a socket connection speaking lines by hand.
type rawClient struct {
	net.Conn
	r *bufio.Reader
}

func dialRawClient(t *testing.T, d *daemon) *rawClient {
	t.Helper()
	c, err := net.Dial("unix", d.socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawClient{Conn: c, r: bufio.NewReaderSize(c, 1<<16)}
}

func (c *rawClient) answer(t *testing.T) *wiretest.Response {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(60 * time.Second))
	b, err := c.r.ReadBytes('\n')
	if err != nil {
		t.Fatalf("read answer: %v", err)
	}
	var r wiretest.Response
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("answer is not JSON: %q", b)
	}
	return &r
}

// TestManySubscribesStayBounded: 20000 subscribe lines on one connection
// get one stream and BUSY for the rest; dvvd's RSS does not grow with them.
func TestManySubscribesStayBounded(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")
	pid := d.proc.Cmd.Process.Pid
	before := rssMiB(t, pid)
	c := dialRawClient(t, d)
	const n = 20000
	go func() {
		w := bufio.NewWriter(c)
		for i := 0; i < n; i++ {
			w.WriteString(`{"op":"subscribe"}` + "\n")
		}
		w.Flush()
	}()
	busy := 0
	for i := 0; i < n; i++ {
		r := c.answer(t)
		switch {
		case r.Result == wire.ResultEvent:
			i--
		case r.Result == wire.OpSubscribe:
			if i != 0 {
				t.Fatalf("subscribe #%d accepted", i)
			}
		case r.Code == wire.Busy:
			busy++
		default:
			t.Fatalf("answer %d: %+v", i, r)
		}
	}
	if busy != n-1 {
		t.Fatalf("%d BUSY answers, want %d", busy, n-1)
	}
	after := rssMiB(t, pid)
	t.Logf("RSS: %d MiB before, %d MiB after %d subscribes", before, after, n)
	if grew := after - before; grew > 64 {
		t.Fatalf("RSS grew by %d MiB for one connection's subscribes", grew)
	}
}

// TestUnfinishedLinesStayBounded: ten clients each send 31 MiB of a line
// that never ends. dvvd holds at most its line budget (96 MiB), answers the
// rest BUSY when their lines end, and hands the memory back once they
// leave; another client is served throughout.
func TestUnfinishedLinesStayBounded(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")
	pid := d.proc.Cmd.Process.Pid
	before := rssMiB(t, pid)
	chunk := []byte(strings.Repeat("x", 1<<20))
	var wg sync.WaitGroup
	clients := make([]*rawClient, 10)
	for i := range clients {
		clients[i] = dialRawClient(t, d)
		wg.Add(1)
		go func(c *rawClient) {
			defer wg.Done()
			io.WriteString(c, `{"op":"ping","name":"`)
			for j := 0; j < 31; j++ {
				if _, err := c.Write(chunk); err != nil {
					return
				}
			}
		}(clients[i])
	}
	wg.Wait()
	peak := rssMiB(t, pid)
	t.Logf("RSS: %d MiB before, %d MiB holding ten 31 MiB unfinished lines", before, peak)
	// dvvd holds at most its 96 MiB line budget; a line's buffer doubles as
	// it grows, so up to as much again is garbage until the collector runs,
	// which the Go runtime lets the heap reach twice its live size before
	// doing: 3x the budget bounds RSS whatever the collector's timing (the
	// unbounded dvvd held 735 MB here).
	if grew := peak - before; grew > 3*96 {
		t.Fatalf("RSS grew by %d MiB holding 10 unfinished lines", grew)
	}
	if r := d.dvv("ping"); r.code != 0 {
		t.Fatalf("ping while lines are held: %v", r)
	}
	// End every line: the ones dvvd did not hold are BUSY, the others are
	// served (a ping with a long name).
	busy := 0
	for _, c := range clients {
		io.WriteString(c, `"}`+"\n")
		r := c.answer(t)
		switch {
		case r.Code == wire.Busy:
			busy++
		case r.Result == wire.OpPing:
		default:
			t.Fatalf("answer after the line ended: %+v", r)
		}
	}
	if busy == 0 {
		t.Fatal("no line was refused: the budget held all 310 MiB")
	}
	for _, c := range clients {
		c.Close()
	}
	testbed.Eventually(t, 30*time.Second, "dvvd to hand the memory back", func() bool {
		return rssMiB(t, pid)-before < 64
	})
	t.Logf("RSS: %d MiB after the clients left", rssMiB(t, pid))
}

// TestHalfOpenClientsCannotLockTheOwnerOut: with every connection slot
// taken by clients that never send a whole line, the owner's dvv still
// gets in (the longest half-open one is closed for it). With every slot
// taken by attached clients, dvv reports BUSY as BUSY. A line left
// unfinished closes its connection after --line-idle-timeout.
func TestHalfOpenClientsCannotLockTheOwnerOut(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	d := startDaemonArgs(t, "", home, []string{"--max-conns", "32", "--line-idle-timeout", "2s"})
	var idle []*rawClient
	for i := 0; i < 48; i++ {
		idle = append(idle, dialRawClient(t, d))
	}
	if r := d.dvv("ping"); r.code != 0 {
		t.Fatalf("the owner was locked out by half-open clients: %v", r)
	}
	// The oldest half-open ones were told why and closed.
	if r := idle[0].answer(t); r.Code != wire.Busy {
		t.Fatalf("evicted client heard %+v", r)
	}
	for _, c := range idle {
		c.Close()
	}

	// A line left unfinished is closed after the idle timeout.
	stuck := dialRawClient(t, d)
	io.WriteString(stuck, `{"op":"pi`)
	if r := stuck.answer(t); r.Code != wire.Timeout {
		t.Fatalf("stuck line: %+v", r)
	}
	if _, err := stuck.r.ReadByte(); err == nil {
		t.Fatal("the stuck connection was not closed")
	}

	// Attached clients are never evicted: the next one hears BUSY, and
	// the CLI says BUSY, not DAEMON_UNAVAILABLE.
	var held []*rawClient
	testbed.Eventually(t, 30*time.Second, "the slots to free", func() bool { return d.dvv("ping").code == 0 })
	for i := 0; i < 32; i++ {
		c := dialRawClient(t, d)
		io.WriteString(c, `{"op":"hello","name":"holder"}`+"\n")
		r := c.answer(t)
		if r.Code == wire.Busy {
			c.Close()
			break
		}
		held = append(held, c)
	}
	r := d.dvv("ping")
	wantExit(t, r, wire.Busy.Info().Exit, wire.Busy)
	for _, c := range held {
		c.Close()
	}
	testbed.Eventually(t, 30*time.Second, "dvv to get in again", func() bool { return d.dvv("ping").code == 0 })
}

// TestInFlightRequestsAreCapped: 100 requests with ids that each wait on a
// lease someone else holds: 64 run, the rest answer BUSY at once; the
// connection and dvvd stay usable.
func TestInFlightRequestsAreCapped(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")
	r := d.must("open", "127.0.0.1", "--protocol", "vnc", "--port", strconv.Itoa(testbed.FreePort(t)), "--wait=false")
	limb := strings.TrimSpace(r.stdout)
	d.must("control", "acquire", limb)
	c := dialRawClient(t, d)
	w := bufio.NewWriter(c)
	for i := 0; i < 100; i++ {
		fmt.Fprintf(w, `{"op":"control","id":%d,"limbId":%q,"action":"acquire","waitMs":3000}`+"\n", i, limb)
	}
	w.Flush()
	busy, notHeld := 0, 0
	for i := 0; i < 100; i++ {
		switch a := c.answer(t); a.Code {
		case wire.Busy:
			busy++
		case wire.LeaseNotHeld, wire.Timeout: // it ran, waited, and gave up
			notHeld++
		default:
			t.Fatalf("answer: %+v", a)
		}
	}
	if busy != 36 || notHeld != 64 {
		t.Fatalf("%d BUSY, %d LEASE_NOT_HELD or TIMEOUT; want 36 and 64 that ran", busy, notHeld)
	}
	// Duplicate keys and non-scalar ids are refused on the same connection.
	for _, line := range []string{`{"op":"ping","op":"shutdown"}`, `{"op":"ping","id":{"x":1}}`} {
		io.WriteString(c, line+"\n")
		if a := c.answer(t); a.Code != wire.BadRequest {
			t.Fatalf("%s: %+v", line, a)
		}
	}
	if r := d.dvv("ping"); r.code != 0 {
		t.Fatalf("dvvd after the flood: %v", r)
	}
}
