package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/wiretest"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// startDaemon runs a daemon on a private socket for one test.
func startDaemon(t *testing.T, cfg Config) *Daemon {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sock")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg.SocketPath = filepath.Join(dir, "test.sock")
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	d := New(cfg)
	if err := d.Listen(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { d.Serve(); close(done) }()
	t.Cleanup(func() {
		d.Shutdown()
		<-done
	})
	return d
}

func dialClient(t *testing.T, d *Daemon, o client.Options) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, d.SocketPath(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// do sends one op's typed arguments.
func do(t *testing.T, c *client.Client, a wire.Args) (*wiretest.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return client.Call[wiretest.Response](ctx, c, a)
}

// doRaw sends a request as it is: for ops a test adds to the table (no
// Args type) and for requests built to be refused.
func doRaw(t *testing.T, c *client.Client, req rawLine) (*wiretest.Response, error) {
	t.Helper()
	return do(t, c, req)
}

// rawLine is a request line of any op with any fields, by JSON name, as
// a client that knows no Args type sends it.
type rawLine struct {
	wire.Envelope
	fields map[string]any
}

// raw is op's line with the fields given as name, value pairs.
func raw(op string, kv ...any) rawLine {
	r := rawLine{Envelope: wire.Envelope{OpName: op}, fields: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		r.fields[kv[i].(string)] = kv[i+1]
	}
	return r
}

func (r rawLine) Op() string { return r.OpName }

func (r rawLine) MarshalJSON() ([]byte, error) {
	m := map[string]any{"op": r.OpName}
	if len(r.ID) > 0 {
		m["id"] = r.ID
	}
	for k, v := range r.fields {
		m[k] = v
	}
	return json.Marshal(m)
}

func mustDo(t *testing.T, c *client.Client, a wire.Args) *wiretest.Response {
	t.Helper()
	r, err := do(t, c, a)
	if err != nil {
		t.Fatalf("%s: %v", a.Op(), err)
	}
	return r
}

func wantCode(t *testing.T, err error, code wire.Code) {
	t.Helper()
	if client.Code(err) != code {
		t.Fatalf("want %s, got %v", code, err)
	}
}

// rawConn is a bare socket connection for speaking lines by hand.
type rawConn struct {
	net.Conn
	r *bufio.Reader
}

func dialRaw(t *testing.T, d *Daemon) *rawConn {
	t.Helper()
	c, err := net.Dial("unix", d.SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{Conn: c, r: bufio.NewReaderSize(c, 1<<20)}
}

func (c *rawConn) roundTrip(t *testing.T, line string) *wiretest.Response {
	t.Helper()
	if _, err := io.WriteString(c, line+"\n"); err != nil {
		t.Fatal(err)
	}
	return c.read(t)
}

func (c *rawConn) read(t *testing.T) *wiretest.Response {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		t.Fatalf("read answer: %v", err)
	}
	var r wiretest.Response
	if err := json.Unmarshal(line, &r); err != nil {
		t.Fatalf("answer is not JSON: %q", line)
	}
	return &r
}

func intp(i int) *int         { return &i }
func strp(s string) *string   { return &s }
func boolp(b bool) *bool      { return &b }
func u64p(u uint64) *uint64   { return &u }
func f64p(f float64) *float64 { return &f }

// cause is the code under err's code when dvvd mapped one failure onto
// another (NOT_CONNECTED caused by AUTH_FAILED), else err's code.
func cause(err error) wire.Code {
	var e *wire.Error
	if errors.As(err, &e) && e.Cause != "" {
		return e.Cause
	}
	return client.Code(err)
}

// asRequest is r as dvvd reads it from a line: its envelope, and its
// op's Args decoded from the same bytes.
func asRequest(t testing.TB, a wire.Args) *request {
	t.Helper()
	line, err := json.Marshal(wire.Envelop(a))
	if err != nil {
		t.Fatal(err)
	}
	req, err := decodeRequest(wire.Builtin(), line)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// member is a group_run member's answer line, read whole.
func member(t *testing.T, m wire.MemberResult) *wiretest.Response {
	t.Helper()
	var r wiretest.Response
	if err := json.Unmarshal(m.Response, &r); err != nil {
		t.Fatalf("member %d: %v (%s)", m.Index, err, m.Response)
	}
	return &r
}
