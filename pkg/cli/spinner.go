package cli

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// spinner shows that dvv is waiting, on a terminal's stderr only; stop
// erases it so nothing of it stays in the scrollback.
type spinner struct {
	w    io.Writer
	stop chan struct{}
	wg   sync.WaitGroup
}

func startSpinner(w io.Writer, what string) *spinner {
	s := &spinner{w: w, stop: make(chan struct{})}
	if !isTerminal(w) {
		return s
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		frames := `|/-\`
		t := time.NewTicker(120 * time.Millisecond)
		defer t.Stop()
		for i := 0; ; i++ {
			fmt.Fprintf(s.w, "\r%c %s", frames[i%len(frames)], what)
			select {
			case <-s.stop:
				fmt.Fprint(s.w, "\r\033[K")
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *spinner) Stop() {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	s.wg.Wait()
}
