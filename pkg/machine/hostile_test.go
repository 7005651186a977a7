package machine

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// peakHeap runs fn while sampling the heap in use, and answers the most
// it grew above where it started.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > base && ms.HeapAlloc-base > peak.Load() {
				peak.Store(ms.HeapAlloc - base)
			}
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	fn()
	close(done)
	<-sampled
	return peak.Load()
}

// TestHostileQMPServersAnswerCodedAndBounded: a QMP socket whose server
// turns hostile at each step of the protocol. Every act answers a coded
// error with a next step, well within the act's timeout, holding at most
// a few MiB however much the server sends, and leaves no goroutine behind.
func TestHostileQMPServersAnswerCodedAndBounded(t *testing.T) {
	// The handshake's bound, shortened so that a silent server costs this
	// test a moment (dvvd's is 10 s).
	old := qmpGreetTimeout
	qmpGreetTimeout = 300 * time.Millisecond
	defer func() { qmpGreetTimeout = old }()
	cases := []struct {
		behaviour string
		code      wire.Code
	}{
		{testbed.QMPEndlessGreeting, wire.ProtocolError},
		{testbed.QMPSilent, wire.Timeout},
		{testbed.QMPEndlessReply, wire.ProtocolError},
		{testbed.QMPHugeReply, wire.ProtocolError},
		{testbed.QMPGarbage, wire.ProtocolError},
		{testbed.QMPCloseMidReply, wire.Unreachable},
		{testbed.QMPEventFlood, wire.ProtocolError},
	}
	for _, tc := range cases {
		t.Run(tc.behaviour, func(t *testing.T) {
			sp, err := Parse("qmp:" + testbed.HostileQMP(t, tc.behaviour))
			if err != nil {
				t.Fatal(err)
			}
			before := runtime.NumGoroutine()
			// Far longer than any bound of the client: an act that
			// reaches it has waited on the server instead of refusing it.
			ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
			defer cancel()
			var stateErr error
			peak := peakHeap(func() {
				m, err := Open(ctx, sp, nil)
				if err == nil {
					_, err = m.State(ctx)
					m.Close()
				}
				stateErr = err
			})
			if ctx.Err() != nil {
				t.Errorf("the act waited out its whole timeout: %v", stateErr)
			}
			const limit = 16 << 20
			if peak > limit {
				t.Errorf("the heap grew by %d MiB reading the server (limit %d MiB)", peak>>20, limit>>20)
			}
			var we *wire.Error
			if !errors.As(stateErr, &we) || we.Code != tc.code || we.Next == "" {
				t.Fatalf("want %s with a next step, got %#v", tc.code, stateErr)
			}
			if len(we.Message) > 400 {
				t.Errorf("the refusal repeats what the server sent (%d bytes): %.200s…", len(we.Message), we.Message)
			}
			t.Logf("%s: %s; heap grew by at most %d KiB", tc.behaviour, we.Code, peak>>10)
			testbed.Eventually(t, 5*time.Second, "the act's goroutines to end", func() bool {
				return runtime.NumGoroutine() <= before
			})
		})
	}
}
