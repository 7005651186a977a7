package client

import (
	"context"

	"github.com/dvvhq/dvv/pkg/wire"
)

// Typed calls. ops_gen.go (written by internal/gen/args from wire.Ops) has
// one method per op taking that op's wire.*Args, so a caller cannot send a
// field its op does not take: c.Click(ctx, wire.ClickArgs{…}). Each
// answers its op's wire.*Answer, decoded straight from the line: the
// fields the op declares, and nothing a newer dvvd added. Call is the
// same for any op's Args and answer type; Do answers the line itself.

// Call sends one op's typed arguments and reads the answer as R, that
// op's answer type. A coded failure is a *wire.Error, returned with the
// answer's fields as far as the failure's line set them.
func Call[R any](ctx context.Context, c *Client, a wire.Args) (*R, error) {
	r, err := c.Do(ctx, a)
	if r == nil {
		return nil, err
	}
	ans, derr := wire.DecodeAnswer[R](r)
	if derr != nil {
		if err != nil {
			return nil, err
		}
		return nil, undecodable(r, derr)
	}
	return ans, err
}

// answer is Call for the generated methods.
func answer[A wire.Args, R any](ctx context.Context, c *Client, a A) (*R, error) {
	return Call[R](ctx, c, a)
}
