package cli

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
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
func (e *env) call(req *wire.Request) (*wire.Response, error) { return e.callWith(req, nil) }

// localFallback moves a local file through the CLI itself when dvvd refuses
// to touch a path on its machine because the token lacks local.files. The
// CLI runs as the same user dvvd serves (dvvd checks the peer's uid), so
// this reaches no file the caller could not reach anyway; it only keeps
// `dvv screen`, `dvv files get/put` usable with an agent's token.
type localFallback struct {
	strip  func(*wire.Request) error  // carry the data inline instead of naming the path
	finish func(*wire.Response) error // write what came back inline to the path
}

func (e *env) callWith(req *wire.Request, fb *localFallback) (*wire.Response, error) {
	resp, err := e.roundTrip(req)
	if fb != nil && localPathDenied(err) {
		if err = fb.strip(req); err == nil {
			resp, err = e.roundTrip(req)
			if err == nil && fb.finish != nil {
				if err = fb.finish(resp); err != nil {
					resp = nil
				}
			}
		} else {
			resp = nil
		}
	}
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

// localPathDenied reports a refusal that names only the local.files
// capability (the request named a path on dvvd's machine).
func localPathDenied(err error) bool {
	var we *wire.Error
	return errors.As(err, &we) && we.Code == wire.PolicyDenied && strings.Contains(we.Message, `"local.files"`)
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
