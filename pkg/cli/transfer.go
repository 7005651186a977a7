package cli

import (
	"context"
	"fmt"
	"path"
	"sync/atomic"
	"time"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// movesFile reports a files get or put: the requests that report progress.
func movesFile(req wire.Args) bool {
	f, ok := req.(wire.FilesArgs)
	return ok && (f.Action == "get" || f.Action == "put")
}

// withProgress has the files get or put that run sends report its progress,
// drawn as a bar on a terminal's stderr unless quiet or --json.
func (e *env) withProgress(verb, name string, quiet bool, run func() error) error {
	bar := newProgressBar(e.dataErr(), verb+" "+oneLine(path.Base(name)))
	if quiet || e.json {
		bar.on = false
	}
	e.onProgress = bar.update
	defer func() { e.onProgress = nil }()
	defer bar.clear() // before an error is printed: the message starts on a clean line
	return run()
}

// transferCall is quiet for a files get or put, asking dvvd for progress
// lines. Without --timeout its deadline is for a stall, not for the whole
// transfer: it runs as long as bytes keep moving, and ends TIMEOUT once
// none moved for the usual deadline. --timeout bounds the whole call.
func transferCall[A wire.Args, R any](e *env, m method[A, R], a A, keep client.CallOption) (*R, error) {
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	idle := e.deadline(a)
	var stalled atomic.Bool
	var stall *time.Timer
	if e.timeout.d > 0 {
		ctx, cancel = context.WithTimeout(ctx, e.timeout.d)
		defer cancel()
	} else {
		stall = time.AfterFunc(idle, func() { stalled.Store(true); cancel() })
		defer stall.Stop()
	}
	c, done, err := e.client(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	progress := client.OnProgress(func(p wire.TransferInfo) {
		if stall != nil {
			stall.Reset(idle)
		}
		e.onProgress(p)
	})
	resp, err := m(c.With(keep, progress), ctx, a)
	if err != nil && stalled.Load() {
		return nil, &wire.Error{Code: wire.Timeout, Message: fmt.Sprintf("no byte of the transfer moved for %v", idle),
			Next: "dvvd was asked to stop it and left the destination as it was; check the link, or give --timeout for a longer wait"}
	}
	return resp, err
}
