package daemon

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/dvvhq/dvv/pkg/sock"
	"github.com/dvvhq/dvv/pkg/wire"
)

// Listen opens the control socket (see socket.go for the rules it enforces).
func (d *Daemon) Listen() error {
	if err := checkHandlers(d.cfg.Ops); err != nil {
		return err
	}
	if ln := d.cfg.Listener; ln != nil {
		d.ln = ln
		d.log.Info("listening on the socket the service manager passed", "socket", ln.Addr().String(), "pid", os.Getpid())
		return nil
	}
	path := d.SocketPath()
	ln, err := listen(path)
	if err != nil {
		return err
	}
	d.ln = ln
	d.log.Info("listening", "socket", path, "pid", os.Getpid())
	return nil
}

// Serve accepts connections until Shutdown. Listen must have succeeded.
func (d *Daemon) Serve() error {
	go d.janitor()
	var pause time.Duration
	for {
		c, err := d.ln.AcceptUnix()
		if err != nil {
			if d.ctx.Err() != nil {
				return nil
			}
			// Never fatal: a flood on another port that uses up the file
			// descriptors must not close every limb with dvvd.
			if acceptRetry(err, &pause, d.ctx.Done(), d.log.Warn) {
				continue
			}
			if d.ctx.Err() != nil {
				return nil
			}
			return err
		}
		pause = 0
		uid, err := sock.PeerUID(c)
		if err != nil || uid != os.Getuid() {
			d.log.Warn("refused connection from another user", "peer_uid", uid)
			c.Close()
			continue
		}
		d.connMu.Lock()
		full := d.nconns >= d.cfg.MaxConns && !d.evictHalfOpen()
		var dc *conn
		if !full {
			d.nconns++
			dc = d.newConn(c)
		}
		d.connMu.Unlock()
		if full {
			writeRaw(c, &wire.Reply{Result: wire.ResultError, Code: wire.Busy,
				Message: fmt.Sprintf("dvvd already serves %d connections, each with a complete request", d.cfg.MaxConns),
				Next:    "close idle clients and retry"})
			c.Close()
			continue
		}
		d.conns.Add(1)
		go func() {
			defer d.conns.Done()
			d.serveConn(dc)
			d.connMu.Lock()
			d.nconns--
			d.connMu.Unlock()
		}()
	}
}

// Shutdown closes every limb (withdrawing in-flight intents first), stops
// accepting, removes the socket and waits for connections to end.
func (d *Daemon) Shutdown() {
	d.mu.Lock()
	if d.closing {
		d.mu.Unlock()
		return
	}
	d.closing = true
	limbs := make([]*Limb, 0, len(d.limbs))
	for _, l := range d.limbs {
		limbs = append(limbs, l)
	}
	d.mu.Unlock()
	// Limbs close in parallel: each may wait up to actSettle for its
	// intents, and a hundred of them one after another would outlast a
	// service manager's stop timeout.
	var wg sync.WaitGroup
	for _, l := range limbs {
		wg.Add(1)
		go func() { defer wg.Done(); d.closeLimb(l) }()
	}
	wg.Wait()
	// Only now is the root context cancelled: every limb's context is a
	// child of it, and cancelling first would end each session under its
	// intents instead of letting close withdraw them (a key left down).
	d.cancel()
	if d.ln != nil {
		d.ln.Close()
	}
	done := make(chan struct{})
	go func() { d.conns.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		// A client that never reads keeps its connection's writer blocked
		// until writeTimeout; stopping must not wait for it.
	}
	d.log.Info("stopped", "limbs_closed", len(limbs))
	close(d.stopped)
}

// Done is closed once Shutdown has begun.
func (d *Daemon) Done() <-chan struct{} { return d.ctx.Done() }

// Stopped is closed once Shutdown has finished (and logged "stopped"): a
// main that returned at Done would cut the shutdown short.
func (d *Daemon) Stopped() <-chan struct{} { return d.stopped }

// janitor expires leases of attachments whose shell session ended or that
// sat idle past SessionIdle.
func (d *Daemon) janitor() {
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-d.ctx.Done():
			return
		case <-t.C:
			d.expireAttachments()
		}
	}
}

// evictHalfOpen closes the connection that has been half-open the longest,
// if any, to make room for a new one. d.connMu is held.
func (d *Daemon) evictHalfOpen() bool {
	var victim *conn
	var since time.Time
	for c := range d.live {
		if t, ok := c.halfOpen(); ok && (victim == nil || t.Before(since)) {
			victim, since = c, t
		}
	}
	if victim == nil {
		return false
	}
	delete(d.live, victim)
	writeRaw(victim.nc, &wire.Reply{Result: wire.ResultError, Code: wire.Busy,
		Message: "dvvd's connection slots are full and this connection had not sent a complete request; it was closed to let another client in",
		Next:    "send whole request lines; reconnect and retry"})
	victim.nc.Close()
	return true
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
