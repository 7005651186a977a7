package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dvvhq/dvv/pkg/wire"
)

// DrainTimeout is how long, after the client closes stdin, the requests
// still in flight get to be answered before dvvmcp reports them cancelled
// and exits. It covers dvvd's own bounds (a wait ends within 25 s, a
// reconnect within 60 s).
const DrainTimeout = 65 * time.Second

// stdioTransport is newline-delimited JSON-RPC on a reader and a writer, as
// the SDK's IOTransport, plus what JSON-RPC 2.0 and MCP ask of a server
// that the SDK's transport leaves out:
//   - a line that is not JSON is answered -32700 (a JSON line that is not a
//     JSON-RPC message, -32600) and the session goes on;
//   - an error the SDK would send with code 0, which is no JSON-RPC code, goes
//     out as -32600 for a request sent before initialize, else -32603;
//   - a request the client cancelled (notifications/cancelled) is not
//     answered; its handler's context ends, which withdraws the dvvd call;
//   - when stdin closes, every request already read is still answered
//     (the SDK would cancel them unanswered): the session ends once they
//     are, or after drain, or at stop, answering what is left as cancelled;
//   - list results carry ttlMs and cacheScope only for the protocol
//     versions that define them (2026-07-28 on), not for a session that
//     initialize opened at an earlier version.
type stdioTransport struct {
	r     io.ReadCloser
	w     io.WriteCloser
	max   int
	drain time.Duration
	stop  <-chan struct{} // closed when dvvmcp must end now (a signal)
}

func (t *stdioTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &stdioConn{r: bufio.NewReaderSize(t.r, 64<<10), rc: t.r, w: t.w, max: t.max, drain: t.drain, stop: t.stop,
		lines: make(chan readResult), closed: make(chan struct{}), answered: make(chan struct{}, 1),
		preInit: map[string]bool{}, cancelled: map[string]bool{}, pending: map[string]pendingRequest{}, settled: map[string]bool{}}
	go c.readLines()
	return c, nil
}

type readResult struct {
	line []byte
	err  error
}

type pendingRequest struct {
	id     jsonrpc.ID
	method string
}

type stdioConn struct {
	r     *bufio.Reader
	rc    io.Closer
	w     io.WriteCloser
	wmu   sync.Mutex
	max   int
	drain time.Duration
	stop  <-chan struct{}

	lines    chan readResult // from readLines: stdin is read on its own goroutine so a stop is not stuck behind a read
	closed   chan struct{}
	answered chan struct{} // a pending request was answered

	mu          sync.Mutex
	initialized bool                      // initialize was received
	initID      string                    // its id, to read the version it negotiated
	noCacheHint bool                      // that version predates ttlMs and cacheScope
	preInit     map[string]bool           // ids of requests sent before initialize
	cancelled   map[string]bool           // ids the client cancelled and expects no answer for
	pending     map[string]pendingRequest // requests read and not answered yet
	settled     map[string]bool           // ids the bridge answered as cancelled at the end; a late answer is dropped
	closeOnce   sync.Once
}

func (c *stdioConn) SessionID() string { return "" }

func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

// errFrameTooLong ends the session: a frame over the limit cannot be
// skipped without reading it whole.
var errFrameTooLong = errors.New("JSON-RPC frame over the size limit")

func (c *stdioConn) readLines() {
	for {
		line, err := c.readLine()
		select {
		case c.lines <- readResult{line, err}:
		case <-c.closed:
			return
		}
		if err != nil {
			return
		}
	}
}

func (c *stdioConn) readLine() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := c.r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if c.max > 0 && len(buf) > c.max {
			return nil, errFrameTooLong
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && len(bytes.TrimSpace(buf)) > 0:
			return buf, nil
		case err != nil:
			return nil, err
		}
		return buf, nil
	}
}

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var rr readResult
		select {
		case rr = <-c.lines:
		case <-c.stop:
			return nil, c.finish(0, "dvvmcp was told to stop", io.EOF)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if rr.err != nil {
			return nil, c.finish(c.drain, fmt.Sprintf("the client closed dvvmcp's input and dvvd did not answer within %s", c.drain), rr.err)
		}
		line := bytes.TrimSpace(rr.line)
		if len(line) == 0 {
			continue
		}
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			code, what := jsonrpc.CodeParseError, "not JSON"
			if json.Valid(line) {
				code, what = jsonrpc.CodeInvalidRequest, "not a JSON-RPC 2.0 message"
			}
			c.writeRaw(map[string]any{"jsonrpc": "2.0", "id": nil,
				"error": map[string]any{"code": code, "message": "the line is " + what + " and was skipped: " + err.Error()}})
			continue
		}
		if req, ok := msg.(*jsonrpc.Request); ok {
			c.note(req)
		}
		return msg, nil
	}
}

// note records what Write and finish need to know about a request.
func (c *stdioConn) note(req *jsonrpc.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if req.ID.IsValid() {
		c.pending[idKey(req.ID)] = pendingRequest{id: req.ID, method: req.Method}
	}
	switch {
	case req.Method == "initialize":
		c.initialized = true
		c.initID = idKey(req.ID)
	case req.Method == "notifications/cancelled":
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil && id.IsValid() {
				// It expects no answer, so the end of the session does not wait for one.
				c.cancelled[idKey(id)] = true
				delete(c.pending, idKey(id))
				c.signalAnswered()
			}
		}
	case req.ID.IsValid() && !c.initialized:
		c.preInit[idKey(req.ID)] = true
	}
}

func (c *stdioConn) signalAnswered() {
	select {
	case c.answered <- struct{}{}:
	default:
	}
}

// finish ends the session after stdin closed (or a stop): it waits until
// every request read has been answered, for at most grace, then answers
// the rest as cancelled (why), so no request goes unanswered. It returns
// err for Read to hand the SDK, which then ends the session.
func (c *stdioConn) finish(grace time.Duration, why string, err error) error {
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n == 0 {
			return err
		}
		select {
		case <-c.answered:
			continue
		case <-deadline.C:
		case <-c.stop:
			why = "dvvmcp was told to stop"
		}
		c.cancelPending(why)
		return err
	}
}

// cancelPending answers every request still in flight: a tool call with a
// TIMEOUT tool error (the call is withdrawn from dvvd as the session ends,
// so its effect is unknown), anything else with a JSON-RPC error.
func (c *stdioConn) cancelPending(why string) {
	c.mu.Lock()
	left := make([]pendingRequest, 0, len(c.pending))
	for k, p := range c.pending {
		left = append(left, p)
		c.settled[k] = true
		delete(c.pending, k)
	}
	c.mu.Unlock()
	sort.Slice(left, func(i, j int) bool { return idKey(left[i].id) < idKey(left[j].id) })
	for _, p := range left {
		resp := &jsonrpc.Response{ID: p.id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "cancelled: " + why}}
		if p.method == "tools/call" {
			res := errorResult(wire.Errorf(wire.Timeout, "cancelled: %s; the call was withdrawn and its effect is unknown", why), "")
			if raw, err := json.Marshal(res); err == nil {
				resp = &jsonrpc.Response{ID: p.id, Result: raw}
			}
		}
		if data, err := jsonrpc.EncodeMessage(resp); err == nil {
			c.writeLine(data)
		}
	}
}

// cacheHinted are the methods whose results the SDK gives ttlMs and
// cacheScope.
var cacheHinted = map[string]bool{"tools/list": true, "prompts/list": true, "resources/list": true,
	"resources/templates/list": true, "resources/read": true, "server/discover": true}

// cacheHintsSince is the first protocol version whose list results carry
// ttlMs and cacheScope (dates compare as strings).
const cacheHintsSince = "2026-07-28"

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID.IsValid() {
		key := idKey(resp.ID)
		c.mu.Lock()
		cancelled, early, settled := c.cancelled[key], c.preInit[key], c.settled[key]
		req := c.pending[key]
		delete(c.cancelled, key)
		delete(c.preInit, key)
		delete(c.pending, key)
		if key == c.initID && resp.Error == nil {
			var r struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if json.Unmarshal(resp.Result, &r) == nil && r.ProtocolVersion != "" {
				c.noCacheHint = r.ProtocolVersion < cacheHintsSince
			}
		}
		stripHints := c.noCacheHint && cacheHinted[req.method]
		c.mu.Unlock()
		c.signalAnswered()
		if cancelled || settled {
			return nil
		}
		if resp.Error != nil {
			var we *jsonrpc.Error
			if !errors.As(resp.Error, &we) || we.Code == 0 {
				code := int64(jsonrpc.CodeInternalError)
				if early {
					code = jsonrpc.CodeInvalidRequest
				}
				cp := *resp
				cp.Error = &jsonrpc.Error{Code: code, Message: resp.Error.Error()}
				msg = &cp
			}
		} else if stripHints {
			cp := *resp
			cp.Result = withoutCacheHints(resp.Result)
			msg = &cp
		}
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.writeLine(data)
}

// withoutCacheHints drops ttlMs and cacheScope from a result object.
func withoutCacheHints(result json.RawMessage) json.RawMessage {
	var fields map[string]json.RawMessage
	if json.Unmarshal(result, &fields) != nil {
		return result
	}
	delete(fields, "ttlMs")
	delete(fields, "cacheScope")
	out, err := json.Marshal(fields)
	if err != nil {
		return result
	}
	return out
}

func (c *stdioConn) writeRaw(v any) {
	data, _ := json.Marshal(v)
	c.writeLine(data)
}

func (c *stdioConn) writeLine(data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.w.Write(append(data, '\n')); err != nil {
		return err
	}
	return nil
}

func (c *stdioConn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		close(c.closed)
		err = errors.Join(c.rc.Close(), c.w.Close())
	})
	return err
}
