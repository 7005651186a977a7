package daemon

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/policy"
	"github.com/dvvhq/dvv/pkg/wire"
)

const (
	// termReadMax bounds one term_read answer; the cursor continues.
	termReadMax = 1 << 20
	// termSendMax bounds one term_send.
	termSendMax = 1 << 20
	// runMaxTimeout bounds run's timeoutMs.
	runMaxTimeout = 24 * 60 * 60 * 1000
	// runStdinMax bounds run's standard input (decoded): dvvd holds it
	// whole until the command has read it.
	runStdinMax = 8 << 20
	// runEnvMax bounds run's environment entries.
	runEnvMax = 256
)

// run has a half per kind: a terminal limb runs on its own SSH
// connection, a desktop limb on its machine's SSH sidecar (the one files
// uses).
var _ = register(wire.OpRun, byKind(typed(opRunDesktop), typed(opRunTerminal)), recorded, listedOnDesktops, listedOnTerminals)

func opRunTerminal(c *opCall, a wire.RunArgs) (*wire.RunAnswer, error) {
	term, err := c.l.liveTerminal()
	if err != nil {
		return nil, err
	}
	return runOn(c, term, a)
}

// opRunDesktop runs over the sidecar. Its failure to connect is the
// limb's command channel not being connected: NOT_CONNECTED, with the
// sidecar's code as the cause and its remedy as the next move (run's
// codes stay those of the tool reference).
func opRunDesktop(c *opCall, a wire.RunArgs) (*wire.RunAnswer, error) {
	f, _, err := c.l.filesFor(c)
	if err != nil {
		var we *wire.Error
		if errors.As(err, &we) && we.Code != wire.NotConnected && we.Code != wire.Timeout {
			next := we.Next
			if next == "" {
				next = we.Code.Info().Next
			}
			return nil, &wire.Error{Code: wire.NotConnected, Cause: we.Code, Fingerprint: we.Fingerprint,
				Message: fmt.Sprintf("a desktop limb runs commands over its machine's SSH sidecar, which is not connected: %s: %s", we.Code, we.Message), Next: next}
		}
		return nil, err
	}
	ex, ok := f.(limb.Exec)
	if !ok {
		return nil, wire.Errorf(wire.WrongProtocol, "limb %s's files route runs no commands; open a terminal limb to the machine (dvv open ssh://HOST)", c.l.id)
	}
	r, err := runOn(c, ex, a)
	if err != nil {
		c.l.dropFiles(err)
	}
	return r, err
}

func runOn(c *opCall, ex limb.Exec, a wire.RunArgs) (*wire.RunAnswer, error) {
	max := 0 // the limb's default
	if a.MaxOutputBytes != nil {
		max = *a.MaxOutputBytes
	}
	var stdin []byte
	if a.StdinBase64 != "" {
		if base64.StdEncoding.DecodedLen(len(a.StdinBase64)) > runStdinMax+2 {
			return nil, wire.Errorf(wire.TooLarge, "stdinBase64 is limited to %d bytes of input; put a larger input in a file (files put) and redirect it in the command", runStdinMax)
		}
		var err error
		if stdin, err = base64.StdEncoding.DecodeString(a.StdinBase64); err != nil {
			return nil, wire.Errorf(wire.BadRequest, "stdinBase64 is not valid base64")
		}
		if len(stdin) > runStdinMax {
			return nil, wire.Errorf(wire.TooLarge, "stdinBase64 is limited to %d bytes of input; put a larger input in a file (files put) and redirect it in the command", runStdinMax)
		}
	}
	if len(a.Env) > runEnvMax {
		return nil, wire.Errorf(wire.TooLarge, "env is limited to %d entries, not %d", runEnvMax, len(a.Env))
	}
	ctx, cancel := context.WithTimeout(c.ctx, clampMs(a.TimeoutMs, runMaxTimeout))
	defer cancel()
	res, err := ex.RunWith(ctx, limb.RunSpec{Command: a.Command, Cwd: a.Cwd, MaxOutput: max, Stdin: stdin, Env: a.Env, Sudo: a.Sudo})
	if err != nil {
		return nil, err
	}
	c.l.recordRun(res)
	r := &wire.RunAnswer{}
	r.Run = res
	return r, nil
}

var _ = register(wire.OpTermRead, typed(opTermRead), listedOnTerminals)

func opTermRead(c *opCall, a wire.TermReadArgs) (*wire.TermReadAnswer, error) {
	term, err := c.l.liveTerminal()
	if err != nil {
		return nil, err
	}
	var since uint64
	if a.Since != "" {
		since, err = strconv.ParseUint(a.Since, 10, 64)
		if err != nil {
			return nil, wire.Errorf(wire.BadRequest, "since %q is not a cursor from term_read", a.Since)
		}
	}
	data, next, lost, err := term.Read(since, termReadMax)
	if err != nil {
		return nil, err
	}
	if lost > 0 && a.Since != "" {
		oldest := since + uint64(lost)
		return nil, &wire.Error{Code: wire.CursorExpired,
			Message: fmt.Sprintf("cursor %d is older than the scrollback ring: %d bytes were overwritten and are lost", since, lost),
			Next:    fmt.Sprintf("read again with since %q (the oldest output still held), or without since", strconv.FormatUint(oldest, 10))}
	}
	r := &wire.TermReadAnswer{}
	t := &wire.TermRead{Cursor: strconv.FormatUint(next, 10), Lost: lost}
	if utf8.Valid(data) {
		t.Data = string(data)
	} else {
		t.DataBase64 = base64.StdEncoding.EncodeToString(data)
	}
	r.Term = t
	return r, nil
}

var _ = register(wire.OpTermSend, typed(opTermSend), recorded, listedOnTerminals)

func opTermSend(c *opCall, a wire.TermSendArgs) (*wire.TermSendAnswer, error) {
	var b []byte
	switch {
	case a.Text != nil && a.BytesHex != "":
		return nil, wire.Errorf(wire.BadRequest, "pass text or bytesHex, not both")
	case a.Text != nil:
		b = []byte(*a.Text)
	case a.BytesHex != "":
		var err error
		if b, err = hex.DecodeString(a.BytesHex); err != nil {
			return nil, wire.Errorf(wire.BadRequest, "bytesHex must be hex, two characters a byte, no separators (03 is ctrl+c)")
		}
	default:
		return nil, wire.Errorf(wire.BadRequest, "term_send needs text or bytesHex")
	}
	sent, err := termSend(c, b)
	if err != nil {
		return nil, err
	}
	return &wire.TermSendAnswer{Dispatched: sent}, nil
}

// terminalInputAllowed: type and key on a terminal limb are term_send, and
// need what it needs (exec; see docs/security.md).
func (c *opCall) terminalInputAllowed() error {
	if c, missing := c.att.grant.Missing(policy.TerminalInput); missing {
		e := wire.Errorf(wire.PolicyDenied, "this attachment lacks capability %q, which input to a terminal limb needs (keystrokes into a shell run commands)", c)
		e.Next = fmt.Sprintf("Ask the owner for a token that names it: dvv token create --role operator --cap %s; do not retry.", c)
		return e
	}
	return nil
}

// termSend writes b to the terminal limb (term_send, and type or key on a
// terminal) and says what was sent, for the answer's dispatched.
func termSend(c *opCall, b []byte) (string, error) {
	if len(b) > termSendMax {
		return "", wire.Errorf(wire.TooLarge, "term_send is limited to %d bytes a call", termSendMax)
	}
	if err := c.l.checkLease(c.att); err != nil {
		return "", err
	}
	term, err := c.l.liveTerminal()
	if err != nil {
		return "", err
	}
	if err := term.Send(b); err != nil {
		return "", asWireError(err)
	}
	return fmt.Sprintf("%d bytes sent at %s", len(b), time.Now().Format(time.RFC3339Nano)), nil
}
