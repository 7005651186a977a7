package daemon

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/policy"
	"github.com/dvvhq/dvv/pkg/wire"
)

// lockedBuffer is a log sink the daemon's goroutines may write to while
// the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type panicProbeArgs struct {
	wire.Envelope
	Text *string `json:"text,omitempty"`
}

func (panicProbeArgs) Op() string { return "panic_probe" }

// TestPanicLogCarriesNoRequestData: a handler that panics with a value
// built from the request (the text being typed) answers INTERNAL, the
// daemon goes on serving, and neither the log nor the log tail (what a
// bug report bundles) holds the text; the log still says which op
// panicked, with what type, and where.
func TestPanicLogCarriesNoRequestData(t *testing.T) {
	const op = "panic_probe"
	const secret = "hunter2-correct-horse-battery"
	ops := withOp(wire.OpSpec{Name: op, Inline: true, ReadOnly: true, Caps: []string{string(policy.HistoryRead)},
		Fields: []wire.Field{{Name: "text", Note: "what to panic with"}}, Answer: "never answers", Args: reflect.TypeFor[panicProbeArgs](), AnswerType: reflect.TypeFor[wire.PingAnswer]()})
	handlers[op] = typed(func(c *opCall, a panicProbeArgs) (*wire.PingAnswer, error) {
		switch t := *a.Text; {
		case strings.HasPrefix(t, "error:"):
			panic(errors.New("typing " + t))
		case strings.HasPrefix(t, "index:"):
			var s []string
			_ = s[len(t)] // a runtime error: kept in the log, it holds numbers only
		}
		panic(fmt.Sprintf("typing %q", *a.Text))
	})
	defer delete(handlers, op)

	var logs lockedBuffer
	d := startDaemon(t, Config{Ops: ops, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	c := dialClient(t, d, client.Options{})
	for _, text := range []string{secret, "error:" + secret, "index:" + secret} {
		_, err := doRaw(t, c, raw(op, "text", text))
		wantCode(t, err, wire.Internal)
		if strings.Contains(err.Error(), secret) {
			t.Fatalf("the answer carries the request's text: %v", err)
		}
	}
	mustDo(t, c, wire.PingArgs{})

	out := logs.String()
	tail := strings.Join(d.tail.Lines(), "\n")
	for name, text := range map[string]string{"log": out, "log tail": tail} {
		if strings.Contains(text, secret) {
			t.Fatalf("the %s carries the request's text:\n%s", name, text)
		}
		if strings.Count(text, "panic serving request") != 3 || !strings.Contains(text, "op="+op) {
			t.Fatalf("the %s does not record the three panics of %s:\n%s", name, op, text)
		}
	}
	for _, want := range []string{"type string", "type *errors.errorString", "index out of range", "panic_test.go"} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %q:\n%s", want, out)
		}
	}
}
