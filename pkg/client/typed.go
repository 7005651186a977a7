package client

import (
	"context"

	"github.com/dvvhq/dvv/pkg/wire"
)

// Typed calls. ops_gen.go (written by internal/gen/args from wire.Ops) has
// one method per op taking that op's wire.*Args, so a caller cannot send a
// field its op does not take: c.Click(ctx, wire.ClickArgs{…}). Each
// answers its op's wire.*Answer, read from the line: the fields the op
// declares, under Response's names, and nothing a newer dvvd added. Call
// (and Do) answer the whole Response.

// Call sends one op's typed arguments and waits for its answer.
func Call[A wire.Args](ctx context.Context, c *Client, a A) (*wire.Response, error) {
	return c.Do(ctx, a)
}

// answer is Call read as the op's typed answer (wire.AnswerFrom); a
// failure's fields come back beside its error.
func answer[A wire.Args, R any](ctx context.Context, c *Client, a A) (*R, error) {
	r, err := Call(ctx, c, a)
	if r == nil {
		return nil, err
	}
	return wire.AnswerFrom[R](r), err
}
