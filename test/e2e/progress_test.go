package e2e

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/internal/wiretest"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestProgressLinesOnTheWire speaks the socket protocol by hand against a
// real sshd: progress lines come only to a files get or put that asked for
// them with an id, carry that id, rise to the file's size with the size as
// total, and stop before the answer; a request without progress sees none;
// progress without an id, or on a list, is BAD_REQUEST. The typed client
// sending progress without a callback still gets its answer.
func TestProgressLinesOnTheWire(t *testing.T) {
	s := testbed.StartSSHD(t)
	t.Setenv("HOME", s.Home)
	t.Setenv("SSH_AUTH_SOCK", "")
	d := startDaemon(t)
	c := dial(t, d, "agent")
	limb := must(t, c, wire.OpenArgs{Address: s.Host, Port: &s.Port, Protocol: "ssh"}).LimbID
	must(t, c, wire.WaitArgs{Target: wire.Target{LimbID: limb}, Until: "connected", TimeoutMs: intp(20000)})

	const size = 4 << 20
	data := make([]byte, size)
	rand.Read(data)
	remote := filepath.Join(s.RemoteHome, "file.bin")
	if err := os.WriteFile(remote, data, 0o600); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(t.TempDir(), "got.bin")

	conn, err := net.Dial("unix", d.SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := bufio.NewReaderSize(conn, 1<<20)
	send := func(req string) {
		t.Helper()
		conn.SetDeadline(time.Now().Add(60 * time.Second))
		if _, err := fmt.Fprintln(conn, req); err != nil {
			t.Fatal(err)
		}
	}
	next := func() *wiretest.Response {
		t.Helper()
		line, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		var resp wiretest.Response
		if err := json.Unmarshal(line, &resp); err != nil {
			t.Fatalf("answer %q: %v", line, err)
		}
		return &resp
	}
	get := fmt.Sprintf(`"op":"files","limbId":%q,"action":"get","path":%q,"to":%q`, limb, remote, local)

	send(`{` + get + `,"progress":true}`)
	if a := next(); a.Code != wire.BadRequest || !strings.Contains(a.Message, "id") {
		t.Fatalf("progress without an id: %+v", a)
	}
	send(`{"op":"files","id":1,"limbId":"` + limb + `","action":"list","path":"~","progress":true}`)
	if a := next(); a.Code != wire.BadRequest || !strings.Contains(a.Message, "progress") {
		t.Fatalf("progress on a list: %+v", a)
	}
	send(`{"id":2,` + get + `}`)
	if a := next(); a.Result != wire.OpFiles || string(a.ID) != "2" || a.Files.Bytes != size {
		t.Fatalf("a get without progress: the next line is %+v, want its answer", a)
	}

	send(`{"id":"p",` + get + `,"progress":true}`)
	var lines []wire.TransferInfo
	var answer *wiretest.Response
	for answer == nil {
		a := next()
		if string(a.ID) != `"p"` {
			t.Fatalf("a line for another request: %+v", a)
		}
		switch a.Result {
		case wire.ResultProgress:
			lines = append(lines, *a.Progress)
		default:
			answer = a
		}
	}
	if answer.Result != wire.OpFiles || answer.Files.Bytes != size {
		t.Fatalf("the get with progress answered %+v", answer)
	}
	if len(lines) < 2 {
		t.Fatalf("%d progress lines, want at least the first and the last: %+v", len(lines), lines)
	}
	for i, p := range lines {
		if p.Action != "get" || p.Path != remote || p.TransferID == "" || (i > 0 && p.Bytes < lines[i-1].Bytes) {
			t.Errorf("progress line %d: %+v (after %+v)", i, p, lines[max(0, i-1)])
		}
	}
	if last := lines[len(lines)-1]; last.Bytes != size || last.Total != size {
		t.Errorf("the last progress line is %+v, want %d of %d bytes", last, size, size)
	}
	// Nothing of the transfer follows its answer.
	send(`{"op":"ping","id":"after"}`)
	if a := next(); string(a.ID) != `"after"` || a.Result != wire.OpPing {
		t.Fatalf("after the answer came %+v, want the ping's answer", a)
	}

	// The typed client asking for progress with nowhere to send it: the
	// lines are dropped, the answer still arrives.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	caller, err := client.Dial(ctx, d.SocketPath(), client.Options{Name: "typed"})
	if err != nil {
		t.Fatal(err)
	}
	defer caller.Close()
	res, err := caller.Files(ctx, wire.FilesArgs{Target: wire.Target{LimbID: limb}, Action: "get", Path: remote, To: local, Progress: true})
	if err != nil || res.Files.Bytes != size {
		t.Fatalf("typed get with progress: %+v %v", res, err)
	}

	// DoProgress hands the lines to a callback, the last one always, and
	// none after it returns.
	var got []wire.TransferInfo
	returned := false
	putLine, err := caller.DoProgress(ctx, wire.FilesArgs{Target: wire.Target{LimbID: limb}, Action: "put", From: local,
		Path: filepath.Join(s.RemoteHome, "again.bin")}, func(p wire.TransferInfo) {
		if returned {
			t.Error("a progress callback after DoProgress returned")
		}
		got = append(got, p)
	})
	returned = true
	var put *wire.FilesAnswer
	if err == nil {
		put, err = wire.DecodeAnswer[wire.FilesAnswer](putLine)
	}
	if err != nil || put.Files.Bytes != size {
		t.Fatalf("DoProgress put: %+v %v", put, err)
	}
	if len(got) == 0 || got[len(got)-1].Bytes != size || got[len(got)-1].Total != size || got[len(got)-1].Action != "put" {
		t.Fatalf("DoProgress handed %+v, want the last at %d of %d bytes", got, size, size)
	}
}
