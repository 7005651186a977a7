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
	o, err := e.attachOptions()
	if err != nil {
		return nil, err
	}
	return client.Dial(ctx, e.socketPath(), o)
}

// attachOptions is the attachment every dvv command makes.
func (e *env) attachOptions() (client.Options, error) {
	token := e.getenv("DVV_TOKEN")
	if e.lookupEnv != nil {
		var err error
		if token, err = client.TokenFromEnv(e.lookupEnv); err != nil {
			return client.Options{}, err
		}
	}
	session := e.session
	if session == "" {
		session = shellSession(e.getenv)
	}
	return client.Options{Name: client.ShellName(session), Token: token, Session: session}, nil
}

// socketPath is --socket, else $DVV_SOCKET, else the default socket.
func (e *env) socketPath() string {
	if e.socket != "" {
		return e.socket
	}
	if e.getenv != nil {
		if p := e.getenv("DVV_SOCKET"); p != "" {
			return p
		}
	}
	return client.DefaultSocket()
}

// remote reports a dvvd on another machine (ssh://): a path on this machine
// means nothing to it.
func (e *env) remote() bool { return strings.HasPrefix(e.socketPath(), "ssh://") }

// shellSession is client.ShellSession, reading $DVV_SESSION through getenv
// so tests can name sessions without touching the process environment.
func shellSession(getenv func(string) string) string {
	if s := getenv("DVV_SESSION"); s != "" {
		return s
	}
	return client.ShellSession()
}

// deadline is the client-side deadline for one request (nil: for a dial or
// a request that asks dvvd to wait for nothing).
func (e *env) deadline(req wire.Args) time.Duration {
	if e.timeout.d > 0 {
		return e.timeout.d
	}
	d := baseTimeout
	if req == nil {
		return d
	}
	g := wire.GistOf(req)
	if g.TimeoutMs != nil && *g.TimeoutMs > 0 {
		d += time.Duration(*g.TimeoutMs) * time.Millisecond
	}
	if g.WaitMs != nil && *g.WaitMs > 0 {
		d += time.Duration(*g.WaitMs) * time.Millisecond
	}
	return d
}

// call sends one request and returns dvvd's answer. With --json the answer
// (success or failure) is printed here, as one object, and the caller
// prints nothing more to stdout.
func (e *env) call(a wire.Args) (*wire.Response, error) { return e.callWith(a, nil) }

// localFallback moves a local file's bytes through the CLI itself: the
// request carries them inline and dvv reads or writes the local file in its
// own process. A dvvd sandboxed by its service unit (no write access to the
// caller's tree), one reached over ssh:// on another machine, and a token
// without local.files all work the same way. Only bytes over dvvd's inline
// limits make the request name the path instead, for a dvvd on this
// machine to stream (see docs/security.md).
type localFallback struct {
	strip  func(wire.Enveloped) error // carry the data inline instead of naming the path
	finish func(*wire.Response) error // write what came back inline to the path
	// consumed is set by a strip that read data it cannot read again (a
	// pipe): naming the path then would send only what is left.
	consumed bool
}

func (e *env) callWith(a wire.Args, fb *localFallback) (*wire.Response, error) {
	resp, err := e.exchange(wire.Envelop(a), fb)
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

// exchange sends req with its local bytes inline (fb), or as it is when
// there is no local file to move.
func (e *env) exchange(req wire.Enveloped, fb *localFallback) (*wire.Response, error) {
	if fb == nil {
		return e.send1(req)
	}
	named := wire.Envelop(req) // the request naming the local path, before strip
	err := fb.strip(req)
	var resp *wire.Response
	if err == nil {
		resp, err = e.send1(req)
		if err == nil && fb.finish != nil {
			if err = fb.finish(resp); err != nil {
				return nil, err
			}
		}
	}
	if isCode(err, wire.TooLarge) && !e.remote() && !fb.consumed {
		return e.send1(named)
	}
	return resp, err
}

// isCode reports a coded error of code c.
func isCode(err error, c wire.Code) bool {
	var we *wire.Error
	return errors.As(err, &we) && we.Code == c
}

// roundTrip sends one op's arguments and returns dvvd's answer, printing
// nothing (call is the printing form).
func (e *env) roundTrip(a wire.Args) (*wire.Response, error) { return e.send1(wire.Envelop(a)) }

// send1 is the one socket round trip every command makes: its own shell
// session's attachment, for one request. The local-files fallback edits
// the request itself, so this level stays on the socket's form.
func (e *env) send1(req wire.Enveloped) (*wire.Response, error) {
	e.op = req.Op()
	if e.send != nil {
		return e.send(req)
	}
	if f, ok := req.(*wire.FilesArgs); ok && e.onProgress != nil && movesFile(f) {
		return e.transferTrip(f)
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
