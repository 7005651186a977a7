package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioTransport is newline-delimited JSON-RPC on a reader and a writer, as
// the SDK's IOTransport, plus what JSON-RPC 2.0 and MCP ask of a server
// that the SDK's transport leaves out:
//   - a line that is not JSON is answered -32700 (a JSON line that is not a
//     JSON-RPC message, -32600) and the session goes on;
//   - an error the SDK would send with code 0, which is no JSON-RPC code, goes
//     out as -32600 for a request sent before initialize, else -32603;
//   - a request the client cancelled (notifications/cancelled) is not
//     answered; its handler's context ends, which withdraws the dvvd call.
type stdioTransport struct {
	r   io.ReadCloser
	w   io.WriteCloser
	max int
}

func (t *stdioTransport) Connect(context.Context) (sdk.Connection, error) {
	br := bufio.NewReaderSize(t.r, 64<<10)
	return &stdioConn{r: br, rc: t.r, w: t.w, max: t.max, preInit: map[string]bool{}, cancelled: map[string]bool{}}, nil
}

type stdioConn struct {
	r   *bufio.Reader
	rc  io.Closer
	w   io.WriteCloser
	wmu sync.Mutex
	max int

	mu          sync.Mutex
	initialized bool            // initialize was received
	preInit     map[string]bool // ids of requests sent before initialize
	cancelled   map[string]bool // ids the client cancelled and expects no answer for
	closeOnce   sync.Once
}

func (c *stdioConn) SessionID() string { return "" }

func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

// errFrameTooLong ends the session: a frame over the limit cannot be
// skipped without reading it whole.
var errFrameTooLong = errors.New("JSON-RPC frame over the size limit")

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
		line, err := c.readLine()
		if err != nil {
			return nil, err
		}
		line = bytes.TrimSpace(line)
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

// note records what Write needs to know about a request.
func (c *stdioConn) note(req *jsonrpc.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case req.Method == "initialize":
		c.initialized = true
	case req.Method == "notifications/cancelled":
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil && id.IsValid() {
				c.cancelled[idKey(id)] = true
			}
		}
	case req.ID.IsValid() && !c.initialized:
		c.preInit[idKey(req.ID)] = true
	}
}

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID.IsValid() {
		key := idKey(resp.ID)
		c.mu.Lock()
		cancelled, early := c.cancelled[key], c.preInit[key]
		delete(c.cancelled, key)
		delete(c.preInit, key)
		c.mu.Unlock()
		if cancelled {
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
		}
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.writeLine(data)
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
		err = errors.Join(c.rc.Close(), c.w.Close())
	})
	return err
}
