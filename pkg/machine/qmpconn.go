package machine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/dvvhq/dvv/pkg/wire"
)

// The QMP socket is spoken to by our own small client rather than
// go-qemu's monitor: that one decodes QEMU's greeting with an unbounded
// json.Decoder (an endless greeting grows dvvd's heap until the act's
// timeout), skips lines that are not JSON while the caller waits, and
// cannot bound a reply's wait other than by closing the socket. A QMP
// socket may be another user's or a broken QEMU's, so every line read is
// bounded here: its length, the time to the greeting and to each reply,
// and the events read while waiting for one reply.

var (
	// qmpLineLimit bounds one line QEMU sends (a greeting, a reply or an
	// event). query-block of many disks each with many snapshots is tens
	// of KiB; a longer line is not QEMU's.
	qmpLineLimit = 2 << 20
	// qmpGreetTimeout bounds the handshake: QEMU greets at once and
	// answers qmp_capabilities at once.
	qmpGreetTimeout = 10 * time.Second
	// qmpQuickTimeout bounds every command but the monitor's savevm,
	// loadvm and delvm (which take as long as the guest's memory needs,
	// bounded by the act's own timeout): QEMU answers them at once.
	qmpQuickTimeout = 30 * time.Second
	// qmpEventsPerReply bounds the events skipped while waiting for one
	// reply: QEMU sends a few (STOP, RESUME, RESET …), never thousands.
	qmpEventsPerReply = 1000
)

// qmpConn is one QMP connection, one command in flight at a time.
type qmpConn struct {
	spec Spec
	c    net.Conn
	r    *bufio.Reader
	ctx  context.Context
	stop func() bool
	once sync.Once
}

// qmpError is QEMU's own refusal of a command ({"error": …}).
type qmpError struct{ Class, Desc string }

func (e *qmpError) Error() string { return e.Class + ": " + e.Desc }

// dialQMP connects to the socket at path and completes the handshake
// (greeting, qmp_capabilities). ctx's end closes the connection, which
// ends a read in flight.
func dialQMP(ctx context.Context, s Spec, path string) (*qmpConn, error) {
	var d net.Dialer
	dctx, cancel := context.WithTimeout(ctx, dialTimeout)
	c, err := d.DialContext(dctx, "unix", path)
	cancel()
	if err != nil {
		return nil, err
	}
	return newQMPConn(ctx, s, c), nil
}

// newQMPConn speaks QMP over c (a local socket, or an SSH channel to a
// remote one).
func newQMPConn(ctx context.Context, s Spec, c net.Conn) *qmpConn {
	q := &qmpConn{spec: s, c: c, r: bufio.NewReaderSize(c, 64<<10), ctx: ctx}
	q.stop = context.AfterFunc(ctx, func() { c.Close() })
	return q
}

// handshake reads QEMU's greeting and enters command mode.
func (q *qmpConn) handshake() error {
	q.c.SetDeadline(q.deadline(qmpGreetTimeout))
	line, err := q.line("its greeting")
	if err != nil {
		return err
	}
	var greet struct {
		QMP *json.RawMessage `json:"QMP"`
	}
	if json.Unmarshal(line, &greet) != nil || greet.QMP == nil {
		return q.protocol("its greeting is not QMP's (%s)", clip(line))
	}
	_, err = q.run("qmp_capabilities", nil, qmpGreetTimeout)
	return err
}

func (q *qmpConn) Close() error {
	q.once.Do(func() {
		q.stop()
		q.c.Close()
	})
	return nil
}

// deadline is now+d, or the context's deadline if that is sooner (d 0:
// the context's alone).
func (q *qmpConn) deadline(d time.Duration) time.Time {
	cd, ok := q.ctx.Deadline()
	if d == 0 {
		return cd
	}
	t := time.Now().Add(d)
	if ok && cd.Before(t) {
		t = cd
	}
	return t
}

// run sends one command and reads its reply, skipping events, within
// wait (and the context; wait 0: the context alone).
func (q *qmpConn) run(cmd string, args any, wait time.Duration) (json.RawMessage, error) {
	b, err := json.Marshal(struct {
		Execute string `json:"execute"`
		Args    any    `json:"arguments,omitempty"`
	}{cmd, args})
	if err != nil {
		return nil, err
	}
	q.c.SetDeadline(q.deadline(wait))
	if _, err := q.c.Write(append(b, '\n')); err != nil {
		return nil, q.failed(cmd, err)
	}
	for events := 0; ; events++ {
		if events > qmpEventsPerReply {
			return nil, q.protocol("it sent more than %d events and no answer to %s", qmpEventsPerReply, cmd)
		}
		line, err := q.line("its answer to " + cmd)
		if err != nil {
			return nil, err
		}
		var r struct {
			Event  *json.RawMessage `json:"event"`
			Return json.RawMessage  `json:"return"`
			Error  *qmpError        `json:"error"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, q.protocol("its answer to %s is not JSON (%s)", cmd, clip(line))
		}
		switch {
		case r.Event != nil:
			continue
		case r.Error != nil:
			return nil, r.Error
		case r.Return != nil:
			return r.Return, nil
		}
		return nil, q.protocol("its answer to %s is neither a return nor an error (%s)", cmd, clip(line))
	}
}

// line reads one line of at most qmpLineLimit bytes.
func (q *qmpConn) line(what string) ([]byte, error) {
	var buf []byte
	for {
		part, err := q.r.ReadSlice('\n')
		if len(buf)+len(part) > qmpLineLimit {
			return nil, q.protocol("%s is longer than %d bytes", what, qmpLineLimit)
		}
		switch {
		case err == nil:
			line := append(buf, part...)
			if len(bytes.TrimSpace(line)) == 0 {
				buf = buf[:0]
				continue
			}
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			buf = append(buf, part...)
		default:
			return nil, q.failed(what, err)
		}
	}
}

// failed turns a read or write error into dvv's words: the context's end
// or the deadline is TIMEOUT, the socket closing UNREACHABLE.
func (q *qmpConn) failed(what string, err error) error {
	if q.ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded) {
		return &wire.Error{Code: wire.Timeout, Message: fmt.Sprintf("machine %s: QEMU did not send %s in time", q.spec, what),
			Next: "Check that QEMU runs and is not stopped in a debugger, and that the machine string names its QMP socket (docs/machines.md); then run the act again."}
	}
	return &wire.Error{Code: wire.Unreachable, Message: fmt.Sprintf("machine %s: the QMP socket closed before %s: %v", q.spec, what, err),
		Next: "Check that QEMU still runs (it ends when the machine is stopped), then run the act again; `dvv machine L state` says whether it listens."}
}

func (q *qmpConn) protocol(format string, a ...any) error {
	return &wire.Error{Code: wire.ProtocolError, Message: fmt.Sprintf("machine %s: the QMP socket does not speak QMP as QEMU does: ", q.spec) + fmt.Sprintf(format, a...),
		Next: "Check that the machine string names QEMU's own QMP socket (-qmp unix:PATH,server), not another program's (docs/machines.md)."}
}

// clip is at most 80 bytes of what a server sent, quoted, for a message.
func clip(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// plain is s cut to at most n bytes with control characters and bytes
// that are not UTF-8 replaced, for text a server sent that dvv repeats.
func plain(s string, n int) string {
	cut := len(s) > n
	if cut {
		s = s[:n]
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return '?'
		}
		return r
	}, s)
	if cut {
		s += "…"
	}
	return s
}
