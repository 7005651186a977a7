package client

import (
	"context"

	"github.com/dvvhq/dvv/pkg/wire"
)

// DoProgress is Do for a request that moves a file (files get or put): it
// asks dvvd for progress lines and hands each to fn while the call runs.
// fn runs on its own goroutine, one call at a time, and only ever sees the
// newest state (a slow fn skips states, it never holds up the answer). The
// last state dvvd sent is always handed to fn, and fn is not called after
// DoProgress returns.
func (c *Client) DoProgress(ctx context.Context, a wire.FilesArgs, fn func(wire.TransferInfo)) (*wire.Reply, error) {
	a.Progress = true
	latest := make(chan wire.TransferInfo, 1)
	finished := make(chan struct{})
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for {
			select {
			case p := <-latest:
				fn(p)
			case <-finished:
				select { // the last line came before the answer: show it
				case p := <-latest:
					fn(p)
				default:
				}
				return
			}
		}
	}()
	resp, err := c.do(ctx, a, func(p *wire.TransferInfo) {
		// Only the reading goroutine sends here: replacing a state fn has
		// not taken yet keeps the newest.
		select {
		case <-latest:
		default:
		}
		latest <- *p
	})
	close(finished)
	<-drained
	return resp, err
}

func (c *Client) forgetProgress(id string) {
	c.mu.Lock()
	delete(c.onProg, id)
	c.mu.Unlock()
}
