package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/internal/wiretest"
	"github.com/dvvhq/dvv/pkg/daemon"
	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestReplayProtocolRequests sends the requests of testdata/replay.txt, in
// order on one connection, to a real dvvd with a real Xvnc, and checks each
// answer is what it was before the op table: the same result, or the same
// error code. Old clients keep working.
func TestReplayProtocolRequests(t *testing.T) {
	v := testbed.StartXvnc(t, testbed.XvncOptions{})
	hs, err := hosts.Open(filepath.Join(t.TempDir(), "hosts.json"))
	if err != nil {
		t.Fatal(err)
	}
	d := startDaemonWith(t, daemon.Services{Hosts: hs}, io.Discard)
	data, err := os.ReadFile("testdata/replay.txt")
	if err != nil {
		t.Fatal(err)
	}
	nc, err := net.Dial("unix", d.SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	r := bufio.NewReaderSize(nc, 1<<20)
	vars := map[string]string{"${PORT}": strconv.Itoa(v.Port)}
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		want, req, _ := strings.Cut(line, "\t")
		for k, val := range vars {
			req = strings.ReplaceAll(req, k, val)
		}
		nc.SetDeadline(time.Now().Add(30 * time.Second))
		if _, err := io.WriteString(nc, req+"\n"); err != nil {
			t.Fatal(err)
		}
		ans, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("%s: no answer: %v", req, err)
		}
		var resp wiretest.Response
		if err := json.Unmarshal(ans, &resp); err != nil {
			t.Fatalf("%s: answer %q", req, ans)
		}
		got := resp.Result
		if got == wire.ResultError {
			got = string(resp.Code)
		}
		if got != want {
			t.Errorf("%s\n\tanswered %s (%s), want %s", req, got, resp.Message, want)
		}
		switch {
		case resp.Result == wire.OpOpen:
			vars["${LIMB}"] = resp.LimbID
		case resp.Result == wire.OpGroupOpen && resp.Group != nil:
			vars["${GROUP}"] = resp.Group.GroupID
		}
		n++
	}
	if n < 40 {
		t.Fatalf("only %d requests replayed", n)
	}
}
