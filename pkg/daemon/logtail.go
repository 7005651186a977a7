package daemon

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
)

// logTail keeps dvvd's last log lines in memory for `dvv report`, so a bug
// report carries them even when dvvd logs to a journal the user cannot
// easily read. It holds what the log holds, and the log never carries a
// secret (the secrets tests read it).
type logTail struct {
	mu    sync.Mutex
	lines []string // ring
	next  int
	full  bool
}

// logTailLines bounds the tail: enough to see a reconnect storm, small
// enough to cost nothing (a log line is ~200 bytes).
const logTailLines = 400

func newLogTail() *logTail { return &logTail{lines: make([]string, logTailLines)} }

// Write takes one formatted record (slog's handlers write one per call).
func (t *logTail) Write(p []byte) (int, error) {
	line := string(bytes.TrimRight(p, "\n"))
	t.mu.Lock()
	t.lines[t.next] = line
	t.next = (t.next + 1) % len(t.lines)
	t.full = t.full || t.next == 0
	t.mu.Unlock()
	return len(p), nil
}

// Lines returns the kept lines, oldest first.
func (t *logTail) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.full {
		return append([]string(nil), t.lines[:t.next]...)
	}
	return append(append([]string(nil), t.lines[t.next:]...), t.lines[:t.next]...)
}

// teeHandler sends every record the primary handler takes to a second one.
type teeHandler struct{ primary, copy slog.Handler }

func (h teeHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.primary.Enabled(ctx, l)
}

func (h teeHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.primary.Handle(ctx, r)
	h.copy.Handle(ctx, r.Clone())
	return err
}

func (h teeHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return teeHandler{h.primary.WithAttrs(as), h.copy.WithAttrs(as)}
}

func (h teeHandler) WithGroup(name string) slog.Handler {
	return teeHandler{h.primary.WithGroup(name), h.copy.WithGroup(name)}
}

// withTail returns a logger that also writes into t, at debug level so the
// tail holds what the primary handler lets through.
func withTail(l *slog.Logger, t *logTail) *slog.Logger {
	return slog.New(teeHandler{l.Handler(), slog.NewTextHandler(t, &slog.HandlerOptions{Level: slog.LevelDebug})})
}
