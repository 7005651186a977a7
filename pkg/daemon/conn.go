package daemon

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
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

// newConn makes the connection and registers it for eviction. It runs in
// the accept loop with d.connMu held, so eviction sees every accepted connection
// in the order it came, even before its goroutine has started.
func (d *Daemon) newConn(nc net.Conn) *conn {
	ctx, cancel := context.WithCancel(d.ctx)
	c := &conn{nc: nc, w: bufio.NewWriterSize(nc, 32<<10), ctx: ctx, cancel: cancel, opened: time.Now(),
		lr: newLineReader(nc, wire.MaxLine, d.cfg.LineIdle, d.lines)}
	d.live[c] = struct{}{}
	return c
}

func (d *Daemon) serveConn(c *conn) {
	defer func() {
		d.connMu.Lock()
		delete(d.live, c)
		d.connMu.Unlock()
	}()
	var inflight sync.WaitGroup
	for {
		line, err := c.lr.next()
		switch {
		case errors.Is(err, errLineTooLong):
			c.send(&wire.Reply{Result: wire.ResultError, ID: c.lr.refusedID(), Code: wire.BadRequest,
				Message: fmt.Sprintf("request line longer than %d bytes; skipped", wire.MaxLine),
				Next:    "send large files by local path (from/to) instead of contentBase64"})
			continue
		case errors.Is(err, errLineBusy):
			r := busy(fmt.Sprintf("dvvd already holds %d MiB of unfinished request lines from its clients; this line was skipped", d.lines.max>>20))
			r.ID = c.lr.refusedID()
			c.send(r)
			continue
		case errors.Is(err, errLineIdle):
			c.send(&wire.Reply{Result: wire.ResultError, Code: wire.Timeout,
				Message: fmt.Sprintf("a request line stayed unfinished for %v; the connection is closed", d.cfg.LineIdle),
				Next:    "end every request with a newline"})
		}
		if err != nil {
			break
		}
		if len(bytes.TrimSpace(line)) == 0 {
			c.lr.release()
			continue
		}
		req, err := decodeRequest(d.cfg.Ops, line)
		// The line's buffer counts against the daemon-wide budget of
		// unfinished lines (limits.go); hand it back before serving,
		// which may take long.
		line = nil
		c.lr.release()
		if err != nil {
			resp := errorResponse(nil, err)
			if req != nil {
				resp.ID = req.ID // the envelope was read: the refusal answers its id
			}
			c.send(resp)
			continue
		}
		// Requests without an id are served in order, one after another,
		// so `printf … | nc -U` scripts read answers in sequence. Requests
		// with an id run concurrently and are answered as they finish.
		// Inline ops (wire.OpSpec.Inline) answer from memory in microseconds:
		// handing them to another goroutine would cost more than the op.
		if spec, _ := d.cfg.Ops.Spec(req.OpName); len(req.ID) == 0 || (spec != nil && spec.Inline) {
			d.handle(c.ctx, c, req)
			continue
		}
		if msg := c.admit(&d.inflight); msg != "" {
			resp := busy(msg)
			resp.ID = req.ID
			c.send(resp)
			continue
		}
		inflight.Add(1)
		ctx, done := c.track(req.ID)
		// Its own goroutine, so a slow op (wait, run) does not hold up the
		// reading of the next request, which may be the cancel for it.
		go func() { defer inflight.Done(); defer d.inflight.Add(-1); defer done(); d.handle(ctx, c, req) }()
	}
	// The client stopped sending. It may only have half-closed its side
	// (`printf … | nc -N -U`) and still be reading: let what it asked for
	// finish and be answered. A client that is gone altogether makes a
	// write fail, or hangs up (cancelOnHangup), which cancels what is
	// still running.
	stop := make(chan struct{})
	go cancelOnHangup(c.nc, c.cancel, stop)
	inflight.Wait()
	close(stop)
	c.cancel()
	c.nc.Close()
	c.attMu.Lock()
	att := c.att
	c.attMu.Unlock()
	if att != nil {
		d.detach(att)
	}
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

// errorResponse turns any error into a coded answer. Uncoded errors are
// INTERNAL and keep only their text (which never holds a secret: secrets
// are never formatted into errors anywhere in dvvd).
func errorResponse(id json.RawMessage, err error) *wire.Reply {
	var we *wire.Error
	if !errors.As(err, &we) {
		we = wire.Errorf(wire.Internal, "%v", err)
	}
	next := we.Next
	if next == "" {
		next = we.Code.Info().Next
	}
	return &wire.Reply{Result: wire.ResultError, ID: id, Code: we.Code, Message: we.Message, Next: next, Cause: we.Cause,
		Observation: we.Observation, Fingerprint: we.Fingerprint}
}
