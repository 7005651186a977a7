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

// call sends one op's arguments and reads dvvd's answer as R: that op's
// answer type (call[wire.StatusAnswer](e, wire.StatusArgs{…})), or a
// view of the fields several ops answer alike (actView). With --json the
// answer line (success or failure) is printed here as dvvd wrote it, and
// the caller prints nothing more to stdout.
func call[R any](e *env, a wire.Args) (*R, error) { return callWith[R](e, a, nil) }

// localFallback moves a local file's bytes through the CLI itself: the
// request carries them inline and dvv reads or writes the local file in its
// own process. A dvvd sandboxed by its service unit (no write access to the
// caller's tree), one reached over ssh:// on another machine, and a token
// without local.files all work the same way. Only bytes over dvvd's inline
// limits make the request name the path instead, for a dvvd on this
// machine to stream (see docs/security.md).
type localFallback[R any] struct {
	strip  func(wire.Enveloped) error // carry the data inline instead of naming the path
	finish func(*R) error             // write what came back inline to the path
	// consumed is set by a strip that read data it cannot read again (a
	// pipe): naming the path then would send only what is left.
	consumed bool
}

func callWith[R any](e *env, a wire.Args, fb *localFallback[R]) (*R, error) {
	line, ans, err := exchange(e, wire.Envelop(a), fb)
	if e.json {
		switch {
		case ans != nil && fb != nil && fb.finish != nil:
			// The local file was written here: the answer says where,
			// as dvvd's own would have.
			e.printAnswer(line.ID, any(ans).(wire.Answer))
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
	return ans, err
}

// exchange sends req with its local bytes inline (fb), or as it is when
// there is no local file to move.
func exchange[R any](e *env, req wire.Enveloped, fb *localFallback[R]) (*wire.Reply, *R, error) {
	if fb == nil {
		return decoded[R](e.send1(req))
	}
	named := wire.Envelop(req) // the request naming the local path, before strip
	err := fb.strip(req)
	var line *wire.Reply
	var ans *R
	if err == nil {
		line, ans, err = decoded[R](e.send1(req))
		if err == nil && fb.finish != nil {
			if err = fb.finish(ans); err != nil {
				return nil, nil, err
			}
		}
	}
	if isCode(err, wire.TooLarge) && !e.remote() && !fb.consumed {
		return decoded[R](e.send1(named))
	}
	return line, ans, err
}

// decoded reads a success's line as its op's answer R.
func decoded[R any](line *wire.Reply, err error) (*wire.Reply, *R, error) {
	if err != nil || line == nil {
		return line, nil, err
	}
	ans, derr := wire.DecodeAnswer[R](line)
	if derr != nil {
		return line, nil, wire.Errorf(wire.Internal, "dvvd's %s answer could not be read: %v", line.Result, derr)
	}
	return line, ans, nil
}

// isCode reports a coded error of code c.
func isCode(err error, c wire.Code) bool {
	var we *wire.Error
	return errors.As(err, &we) && we.Code == c
}

// roundTrip sends one op's arguments and reads dvvd's answer as R,
// printing nothing (call is the printing form).
func roundTrip[R any](e *env, a wire.Args) (*R, error) {
	_, ans, err := decoded[R](e.send1(wire.Envelop(a)))
	return ans, err
}

// send1 is the one socket round trip every command makes: its own shell
// session's attachment, for one request. The local-files fallback edits
// the request itself, so this level stays on the socket's form.
func (e *env) send1(req wire.Enveloped) (*wire.Reply, error) {
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

// printAnswer writes an answer as the line dvvd writes for it.
func (e *env) printAnswer(id json.RawMessage, a wire.Answer) {
	b, err := wire.AnswerLine(id, a)
	if err != nil {
		b = []byte(`{"result":"error","code":"INTERNAL","message":"the answer could not be encoded"}`)
	}
	e.printLine(b)
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
