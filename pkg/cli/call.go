package cli

import (
	"context"
	"encoding/json"
	"time"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// baseTimeout is how long a command waits for dvvd's answer beyond any wait
// the request itself asks for (wait's timeoutMs, acquire's waitMs…).
const baseTimeout = 60 * time.Second

// dial attaches to dvvd as this shell's session: every dvv command typed in
// one shell shares one attachment, and so one lease.
func (e *env) dial(ctx context.Context) (*client.Client, error) {
	path := e.socket
	if path == "" {
		path = client.DefaultSocket()
	}
	return client.Dial(ctx, path, client.Options{
		Name:    "shell",
		Token:   e.getenv("DVV_TOKEN"),
		Session: shellSession(e.getenv),
	})
}

// shellSession is client.ShellSession, reading $DVV_SESSION through getenv
// so tests can name sessions without touching the process environment.
func shellSession(getenv func(string) string) string {
	if s := getenv("DVV_SESSION"); s != "" {
		return s
	}
	return client.ShellSession()
}

// deadline is the client-side deadline for one request.
func (e *env) deadline(req *wire.Request) time.Duration {
	if e.timeout > 0 {
		return e.timeout
	}
	d := baseTimeout
	if req.TimeoutMs != nil && *req.TimeoutMs > 0 {
		d += time.Duration(*req.TimeoutMs) * time.Millisecond
	}
	if req.WaitMs != nil && *req.WaitMs > 0 {
		d += time.Duration(*req.WaitMs) * time.Millisecond
	}
	return d
}

// call sends one request and returns dvvd's answer. With --json the answer
// (success or failure) is printed here, as one object, and the caller
// prints nothing more to stdout.
func (e *env) call(req *wire.Request) (*wire.Response, error) {
	resp, err := e.roundTrip(req)
	if e.json {
		switch {
		case resp != nil:
			e.printJSON(resp)
		case err != nil:
			if we, ok := err.(*wire.Error); ok {
				e.printJSON(errorResponse(we))
			}
		}
	}
	return resp, err
}

func (e *env) roundTrip(req *wire.Request) (*wire.Response, error) {
	if e.send != nil {
		return e.send(req)
	}
	ctx, cancel := context.WithTimeout(e.ctx, e.deadline(req))
	defer cancel()
	c, err := e.dial(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.Do(ctx, req)
}

// printJSON writes one JSON object and a newline to stdout.
func (e *env) printJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(`{"result":"error","code":"INTERNAL","message":"the answer could not be encoded"}`)
	}
	e.stdout.Write(append(b, '\n'))
	e.printed = true
}

// human reports whether human-readable output is wanted.
func (e *env) human() bool { return !e.json }
