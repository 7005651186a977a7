package daemon

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

func TestMalformedRequestsGetCodedErrors(t *testing.T) {
	d := startDaemon(t, Config{})
	c := dialRaw(t, d)
	cases := []struct{ line, code, has string }{
		{`{"op":`, "BAD_REQUEST", "malformed"},
		{`not json at all`, "BAD_REQUEST", "malformed"},
		{`{"op":"teleport"}`, "BAD_REQUEST", "unknown op"},
		{`{"limbId":"x"}`, "BAD_REQUEST", `no "op"`},
		{`{"op":"status","limbId":5}`, "BAD_REQUEST", "limbId"},
		{`{"op":"status","bogus":1}`, "BAD_REQUEST", "bogus"},
		{`{"op":"status","limbId":"vnc-00000000"}`, "LIMB_GONE", "no limb"},
		{`{"op":"click","limbId":"vnc-00000000","action":"click","x":1,"y":2}`, "LIMB_GONE", ""},
		{`{"op":"ping"} {"op":"ping"}`, "BAD_REQUEST", "one JSON object"},
	}
	for _, tc := range cases {
		r := c.roundTrip(t, tc.line)
		if r.Result != "error" || string(r.Code) != tc.code || !strings.Contains(r.Message, tc.has) || r.Next == "" {
			t.Errorf("%s: got %+v", tc.line, r)
		}
	}
	if r := c.roundTrip(t, `{"op":"ping","id":7}`); r.Result != "ping" || string(r.ID) != "7" {
		t.Fatalf("connection unusable after bad input: %+v", r)
	}
}

func TestOverlongLineIsRefusedAndSkipped(t *testing.T) {
	d := startDaemon(t, Config{})
	c := dialRaw(t, d)
	go func() {
		big := `{"op":"ping","name":"` + strings.Repeat("x", wire.MaxLine+10) + `"}` + "\n"
		io.WriteString(c, big)
		io.WriteString(c, `{"op":"ping","id":"after"}`+"\n")
	}()
	r := c.read(t)
	if r.Code != wire.BadRequest || !strings.Contains(r.Message, "longer than") {
		t.Fatalf("overlong: %+v", r)
	}
	if r := c.read(t); r.Result != "ping" || string(r.ID) != `"after"` {
		t.Fatalf("after overlong: %+v", r)
	}
}

func TestClientVanishingMidRequest(t *testing.T) {
	d := startDaemon(t, Config{Desktop: fakeDialers()})
	c := dialClient(t, d, client.Options{Name: "a"})
	r := mustDo(t, c, wire.OpenArgs{Address: "fake", Protocol: "vnc", Perceive: boolp(true)})
	for i := 0; i < 20; i++ {
		raw, err := net.Dial("unix", d.SocketPath())
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(raw, `{"op":"wait","limbId":"`+r.LimbID+`","until":"screen-changed","timeoutMs":3000}`+"\n")
		raw.Close()
	}
	mustDo(t, c, wire.PingArgs{})
	mustDo(t, c, wire.StatusArgs{Target: wire.Target{LimbID: r.LimbID}})
}

func TestHundredConcurrentClients(t *testing.T) {
	d := startDaemon(t, Config{})
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := client.Dial(t.Context(), d.SocketPath(), client.Options{Name: "load"})
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			for j := 0; j < 10; j++ {
				if _, err := c.Limbs(t.Context(), wire.LimbsArgs{}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestConcurrentRequestsAnswerOutOfOrder(t *testing.T) {
	d := startDaemon(t, Config{Desktop: fakeDialers()})
	c := dialClient(t, d, client.Options{Name: "a"})
	id := openFake(t, c, "fake")
	raw := dialRaw(t, d)
	io.WriteString(raw, `{"op":"wait","id":1,"limbId":"`+id+`","until":"screen-changed","timeoutMs":2000}`+"\n")
	io.WriteString(raw, `{"op":"ping","id":2}`+"\n")
	if first := raw.read(t); string(first.ID) != "2" {
		t.Fatalf("ping waited behind a slow wait: first answer %s", first.ID)
	}
	if second := raw.read(t); string(second.ID) != "1" || second.Wait == nil || second.Wait.Settled {
		t.Fatalf("second answer %+v", second)
	}
}

func TestSocketDirectoryRules(t *testing.T) {
	base := t.TempDir()
	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o755)
	os.Chmod(open, 0o755)
	if err := prepareDir(open); err == nil || !strings.Contains(err.Error(), "0700") {
		t.Fatalf("group/other-accessible dir accepted: %v", err)
	}
	real := filepath.Join(base, "real")
	os.Mkdir(real, 0o700)
	link := filepath.Join(base, "link")
	os.Symlink(real, link)
	if err := prepareDir(link); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("symlink accepted: %v", err)
	}
	if os.Getuid() == 0 {
		foreign := filepath.Join(base, "foreign")
		os.Mkdir(foreign, 0o700)
		os.Chown(foreign, 65534, 65534)
		if err := prepareDir(foreign); err == nil || !strings.Contains(err.Error(), "owned by") {
			t.Fatalf("foreign-owned dir accepted: %v", err)
		}
	}
	fresh := filepath.Join(base, "fresh")
	if err := prepareDir(fresh); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != 0o700 {
		t.Fatalf("created with %v", fi.Mode())
	}
}

func TestStaleSocketAndAlreadyRunning(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	os.Mkdir(dir, 0o700)
	path := filepath.Join(dir, "x.sock")
	// A stale socket: bound, then its owner went away without removing it.
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("stale socket not left behind: %v", err)
	}
	ln, err := listen(path)
	if err != nil {
		t.Fatalf("stale socket not replaced: %v", err)
	}
	defer ln.Close()
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v", fi.Mode())
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	if _, err := listen(path); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Fatalf("second daemon on a live socket: %v", err)
	}
}

func TestShutdownRemovesSocket(t *testing.T) {
	d := startDaemon(t, Config{Desktop: fakeDialers()})
	c := dialClient(t, d, client.Options{Name: "a"})
	mustDo(t, c, wire.OpenArgs{Address: "fake", Protocol: "vnc"})
	d.Shutdown()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat(d.SocketPath()); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("socket not removed on shutdown")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestHalfClosedClientStillGetsAnswers(t *testing.T) {
	d := startDaemon(t, Config{})
	for i := 0; i < 20; i++ {
		c := dialRaw(t, d)
		io.WriteString(c, `{"op":"ping"}`+"\n"+`{"op":"limbs"}`+"\n")
		c.Conn.(*net.UnixConn).CloseWrite() // what `nc -N` does
		if r := c.read(t); r.Result != "ping" {
			t.Fatalf("first answer %+v", r)
		}
		if r := c.read(t); r.Result != "limbs" || r.Limbs == nil {
			t.Fatalf("second answer %+v", r)
		}
	}
}

// A socket path past the kernel's limit is refused with the length and
// what to do, not bind's bare "invalid argument".
func TestSocketPathTooLongSaysSo(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, strings.Repeat("d", 120)+".sock")
	_, err := listen(long)
	if err == nil || !strings.Contains(err.Error(), "XDG_RUNTIME_DIR") || !strings.Contains(err.Error(), strconv.Itoa(len(long))) {
		t.Fatalf("listen on a %d-byte path: %v", len(long), err)
	}
}
