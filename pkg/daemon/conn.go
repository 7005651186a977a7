package daemon

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dvvhq/dvv/pkg/sock"
	"github.com/dvvhq/dvv/pkg/wire"
)

func socketPathFor(id string) string { return sock.Path(id) }

// writeTimeout bounds how long a client that stopped reading can hold an
// answer; past it the connection is dropped.
const writeTimeout = 30 * time.Second

// conn is one socket connection. It starts unattached; the first request
// that needs an attachment (or hello/attach) makes one.
type conn struct {
	nc net.Conn
	// attMu guards att: concurrent requests (those with an id) may race to
	// be the first one, and exactly one of them must attach.
	att   *attachment
	attMu sync.Mutex

	wmu    sync.Mutex // serialises answers; each is written and flushed whole
	w      *bufio.Writer
	broken bool // a write failed: later answers are dropped, not retried into a dead peer

	ctx    context.Context
	cancel context.CancelFunc

	// inflight maps the ids of requests still running concurrently to what
	// withdraws their work (op cancel).
	inflightMu sync.Mutex
	inflight   map[string]context.CancelFunc

	lr         *lineReader
	opened     time.Time
	subscribed atomic.Bool // one event stream per connection
}

// track registers a request with an id as in flight and returns its
// context; done unregisters it.
func (c *conn) track(id json.RawMessage) (ctx context.Context, done func()) {
	ctx, cancel := context.WithCancel(c.ctx)
	key := string(bytes.TrimSpace(id))
	c.inflightMu.Lock()
	if c.inflight == nil {
		c.inflight = map[string]context.CancelFunc{}
	}
	c.inflight[key] = cancel
	c.inflightMu.Unlock()
	return ctx, func() {
		c.inflightMu.Lock()
		delete(c.inflight, key)
		c.inflightMu.Unlock()
		cancel()
	}
}

// admit counts a request with an id in, against this connection's limit
// and total (every connection's), or says which limit refuses it.
func (c *conn) admit(total *atomic.Int64) string {
	c.inflightMu.Lock()
	n := len(c.inflight)
	c.inflightMu.Unlock()
	if n >= maxInflightPerConn {
		return fmt.Sprintf("this connection already has %d requests running; answer them first", maxInflightPerConn)
	}
	if total.Add(1) > maxInflightTotal {
		total.Add(-1)
		return fmt.Sprintf("dvvd already runs %d requests for its clients", maxInflightTotal)
	}
	return ""
}

// withdraw cancels the in-flight request with that id, if there is one.
func (c *conn) withdraw(id json.RawMessage) bool {
	c.inflightMu.Lock()
	cancel, ok := c.inflight[string(bytes.TrimSpace(id))]
	c.inflightMu.Unlock()
	if ok {
		cancel()
	}
	return ok
}

// send writes one answer line. A client that cannot take it within
// writeTimeout, or is gone, has the connection cancelled: what it still has
// running is withdrawn.
func (c *conn) send(r *wire.Reply) {
	line, err := json.Marshal(r)
	if err != nil {
		line, _ = json.Marshal(&wire.Reply{Result: wire.ResultError, ID: r.ID, Code: wire.Internal,
			Message: "answer could not be encoded"})
	}
	c.writeLine(line)
}

// sendLine writes a line that is not an answer (an event, a transfer's
// progress): a value encoding/json cannot fail on.
func (c *conn) sendLine(v any) {
	line, err := json.Marshal(v)
	if err == nil {
		c.writeLine(line)
	}
}

// writeLine writes one whole line, unless the connection broke.
func (c *conn) writeLine(line []byte) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.broken {
		return
	}
	c.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
	c.w.Write(line)
	c.w.WriteByte('\n')
	if err := c.w.Flush(); err != nil {
		c.broken = true
		c.cancel()
		c.nc.Close() // ends the read loop too
	}
}

// writeRaw sends a last answer on a connection dvvd is turning away (no
// slot left at accept, or a half-open one evicted to make room), with a
// short deadline: it runs on the accept loop, which a peer that does not
// read must not hold.
func writeRaw(nc net.Conn, r *wire.Reply) {
	b, _ := json.Marshal(r)
	nc.SetWriteDeadline(time.Now().Add(time.Second))
	nc.Write(append(b, '\n'))
}

// halfOpen reports since when a connection has given dvvd nothing it could
// serve: it never finished a line, or its current line is unfinished.
// Such connections are what eviction picks when the connection slots are
// full, so a person's CLI always gets in.
func (c *conn) halfOpen() (time.Time, bool) {
	if ns := c.lr.midSince.Load(); ns != 0 {
		return time.Unix(0, ns), true
	}
	if c.lr.served.Load() == 0 {
		return c.opened, true
	}
	return time.Time{}, false
}
