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
	// dvv reads and writes the local files a request names itself (see
	// client.Options.InlineFiles and docs/security.md).
	return client.Options{Name: client.ShellName(session), Token: token, Session: session, InlineFiles: true}, nil
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

// method is one of the client's typed methods, as a method expression:
// (*client.Client).Click, (*client.Client).Status…
type method[A wire.Args, R any] func(*client.Client, context.Context, A) (*R, error)

// request sends one op's arguments a through the client's typed method m
// (request(e, (*client.Client).Status, wire.StatusArgs{…})) and answers
// that op's answer type. With --json the answer line (success or failure)
// is printed here as dvvd wrote it, and the caller prints nothing more to
// stdout.
func request[A wire.Args, R any](e *env, m method[A, R], a A) (*R, error) {
	ans, line, err := callKeeping(e, m, a)
	if e.json {
		e.printReply(line, err)
	}
	return ans, err
}

// quiet is request printing nothing.
func quiet[A wire.Args, R any](e *env, m method[A, R], a A) (*R, error) {
	ans, _, err := callKeeping(e, m, a)
	return ans, err
}

// callKeeping is one call on this shell's attachment under a's deadline (a
// files get or put: a stall's, with its progress to e.onProgress),
// answering the line it read as well (client.KeepLine), which e.last keeps.
func callKeeping[A wire.Args, R any](e *env, m method[A, R], a A) (*R, *wire.Reply, error) {
	e.op = a.Op()
	var line *wire.Reply
	keep := client.KeepLine(&line)
	var ans *R
	var err error
	if e.onProgress != nil && movesFile(a) {
		ans, err = transferCall(e, m, a, keep)
	} else {
		ctx, cancel := context.WithTimeout(e.ctx, e.deadline(a))
		defer cancel()
		c, done, cerr := e.client(ctx)
		if cerr != nil {
			return nil, nil, cerr
		}
		defer done()
		ans, err = m(c.With(keep), ctx, a)
	}
	if line != nil {
		e.last = line
	}
	return ans, line, err
}

// printReply prints what --json shows of one call: the line it read, or
// the failure as dvvd's line would say it when no line came.
func (e *env) printReply(line *wire.Reply, err error) {
	switch {
	case line != nil && len(line.Line) > 0:
		e.printLine(line.Line)
	case line != nil:
		e.printJSON(line)
	case err != nil:
		if we, ok := err.(*wire.Error); ok {
			e.printJSON(wire.ErrorReply(nil, we))
		}
	}
}

// client is the attachment one call goes over, and what ends it after the
// call: e.attached (a script's one attachment, kept open), a client over
// e.send (unit tests: the typed client and its options run over it), or a
// new attachment as this shell's session.
func (e *env) client(ctx context.Context) (*client.Client, func(), error) {
	switch {
	case e.attached != nil:
		return e.attached, func() {}, nil
	case e.send != nil:
		o, err := e.attachOptions()
		if err != nil {
			return nil, nil, err
		}
		c := client.Over(func(_ context.Context, a wire.Args) (*wire.Reply, error) { return e.send(wire.Envelop(a)) }, o)
		return c, func() { c.Close() }, nil
	}
	c, err := e.dial(ctx)
	if err != nil {
		return nil, nil, err
	}
	return c, func() { c.Close() }, nil
}

// isCode reports a coded error of code c.
func isCode(err error, c wire.Code) bool {
	var we *wire.Error
	return errors.As(err, &we) && we.Code == c
}

// printLine writes one answer line, as read (C1 controls as \u escapes,
// jsonSafe), and a newline to stdout.
func (e *env) printLine(line []byte) {
	line = jsonSafe(line)
	e.dataOut().Write(append(line[:len(line):len(line)], '\n'))
	e.printed = true
}

// printJSON writes one JSON object and a newline to stdout.
func (e *env) printJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(`{"result":"error","code":"INTERNAL","message":"the answer could not be encoded"}`)
	}
	e.dataOut().Write(append(jsonSafe(b), '\n'))
	e.printed = true
}

// human reports whether human-readable output is wanted.
func (e *env) human() bool { return !e.json }
