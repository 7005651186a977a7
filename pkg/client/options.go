package client

import (
	"context"
	"strings"

	"github.com/dvvhq/dvv/pkg/wire"
)

// CallOption is something a view of a Client (With) does with each call
// made on it, typed methods included: keep the answer line, report a
// transfer's progress.
type CallOption func(*callOptions)

type callOptions struct {
	line     **wire.Reply
	progress func(wire.TransferInfo)
}

// With is a view of c that shares its connection and attachment and
// makes each call with opts (after c's own): c.With(client.KeepLine(&r)).Status(ctx, a).
func (c *Client) With(opts ...CallOption) *Client {
	v := &Client{link: c.link, opts: c.opts, Info: c.Info}
	for _, o := range opts {
		o(&v.opts)
	}
	return v
}

// KeepLine has each call store in *r the answer line it read, success or
// failure, as dvvd wrote it: what a script that asked for JSON is shown.
// When InlineFiles wrote a local file, it is the answer as dvvd's own
// would have been, naming that file. Nil when no line came (the
// connection failed, the deadline passed, a local file could not be
// read or written).
func KeepLine(r **wire.Reply) CallOption {
	return func(o *callOptions) { o.line = r }
}

// OnProgress has a call that moves a file (files get or put) ask dvvd for
// progress lines and hand each to fn while it runs, as DoProgress does. A
// dvvd from before progress lines is asked again without them.
func OnProgress(fn func(wire.TransferInfo)) CallOption {
	return func(o *callOptions) { o.progress = fn }
}

// RoundTrip answers one request as a connection to dvvd would: the line,
// and the *wire.Error of a coded failure.
type RoundTrip func(context.Context, wire.Args) (*wire.Reply, error)

// Over is a client whose requests rt answers, with no connection: for
// code written on the typed methods to be tested without a dvvd. o's
// InlineFiles applies as for a dialled client.
func Over(rt RoundTrip, o Options) *Client {
	return &Client{link: &link{rt: rt, inline: o.InlineFiles, done: make(chan struct{}),
		events: make(chan *wire.Event), pending: map[string]chan *wire.Reply{}, onProg: map[string]func(*wire.TransferInfo){}}}
}

// roundTrips is doAll for an Over client.
func (c *Client) roundTrips(ctx context.Context, reqs []wire.Args) ([]*wire.Reply, error) {
	var resps []*wire.Reply
	for _, req := range reqs {
		r, err := c.rt(ctx, req)
		if err == nil && r != nil {
			if we := r.Err(); we != nil {
				err = we
			}
		}
		if r != nil {
			resps = append(resps, r)
		}
		if err != nil {
			return resps, err
		}
	}
	return resps, nil
}

// send is one request on the wire, with progress lines when the view asks
// for them and the request moves a file.
func (c *Client) send(ctx context.Context, a wire.Args) (*wire.Reply, error) {
	f, moves := movesFile(a)
	if c.opts.progress == nil || !moves {
		return c.do(ctx, a, nil)
	}
	r, err := c.DoProgress(ctx, f, c.opts.progress)
	if IsCode(err, wire.BadRequest) && strings.Contains(err.Error(), `"progress"`) {
		return c.do(ctx, a, nil) // a dvvd from before progress lines
	}
	return r, err
}

// movesFile reports a files get or put (the requests that report
// progress), as its arguments.
func movesFile(a wire.Args) (wire.FilesArgs, bool) {
	var f wire.FilesArgs
	switch v := a.(type) {
	case wire.FilesArgs:
		f = v
	case *wire.FilesArgs:
		f = *v
	default:
		return f, false
	}
	return f, f.Action == "get" || f.Action == "put"
}
