package client

import (
	"context"

	"github.com/dvvhq/dvv/pkg/wire"
)

// Typed calls for the ops an agent loop uses most. Each builds the request
// the op table (wire.Ops) describes and returns the part of the answer the
// op is for; the whole answer is still there through Do.

// Open opens a limb on an endpoint and returns its id.
func (c *Client) Open(ctx context.Context, protocol, address string, port int, perceive bool) (string, error) {
	req := &wire.Request{Op: wire.OpOpen, Protocol: protocol, Address: address, Perceive: &perceive}
	if port != 0 {
		req.Port = &port
	}
	r, err := c.Do(ctx, req)
	if err != nil {
		return "", err
	}
	return r.LimbID, nil
}

// CloseLimb closes a limb (closing a gone limb is a success).
func (c *Client) CloseLimb(ctx context.Context, limbID string) error {
	_, err := c.Do(ctx, &wire.Request{Op: wire.OpClose, LimbID: limbID})
	return err
}

// Status is a limb's observation.
func (c *Client) Status(ctx context.Context, limbID string) (*wire.Observation, error) {
	r, err := c.Do(ctx, &wire.Request{Op: wire.OpStatus, LimbID: limbID})
	if err != nil {
		return nil, err
	}
	return r.Observation, nil
}

// Wait blocks in dvvd until the condition holds or timeoutMs passes (a
// timeout is Settled false, not an error).
func (c *Client) Wait(ctx context.Context, limbID, until string, timeoutMs int) (*wire.WaitResult, error) {
	r, err := c.Do(ctx, &wire.Request{Op: wire.OpWait, LimbID: limbID, Until: until, TimeoutMs: &timeoutMs})
	if err != nil {
		return nil, err
	}
	return r.Wait, nil
}

// Screen reads the whole frame at a scale (1 = native).
func (c *Client) Screen(ctx context.Context, limbID string, scale float64) (*wire.Screen, error) {
	req := &wire.Request{Op: wire.OpScreen, LimbID: limbID}
	if scale != 1 {
		req.Scale = &scale
	}
	r, err := c.Do(ctx, req)
	if err != nil {
		return nil, err
	}
	return r.Screen, nil
}

// Acquire takes the control lease, waiting up to waitMs for another holder.
func (c *Client) Acquire(ctx context.Context, limbID, reason string, waitMs int) (*wire.Lease, error) {
	req := &wire.Request{Op: wire.OpControl, LimbID: limbID, Action: "acquire", Reason: reason}
	if waitMs > 0 {
		req.WaitMs = &waitMs
	}
	r, err := c.Do(ctx, req)
	if err != nil {
		return nil, err
	}
	return r.Lease, nil
}

// Release gives the control lease back.
func (c *Client) Release(ctx context.Context, limbID string) error {
	_, err := c.Do(ctx, &wire.Request{Op: wire.OpControl, LimbID: limbID, Action: "release"})
	return err
}

// Click sends a pointer action at (x, y), fenced by the geometry generation
// the coordinate was computed against. It answers what dvvd dispatched.
func (c *Client) Click(ctx context.Context, limbID, action string, x, y int, generation uint64) (string, error) {
	r, err := c.Do(ctx, &wire.Request{Op: wire.OpClick, LimbID: limbID, Action: action, X: &x, Y: &y, Generation: &generation})
	if err != nil {
		return "", err
	}
	return r.Dispatched, nil
}

// Type types text into whatever has focus.
func (c *Client) Type(ctx context.Context, limbID, text string) (string, error) {
	r, err := c.Do(ctx, &wire.Request{Op: wire.OpType, LimbID: limbID, Text: &text})
	if err != nil {
		return "", err
	}
	return r.Dispatched, nil
}

// Key sends one key or chord (e.g. "ctrl+c").
func (c *Client) Key(ctx context.Context, limbID, keys string) (string, error) {
	r, err := c.Do(ctx, &wire.Request{Op: wire.OpKey, LimbID: limbID, Keys: keys})
	if err != nil {
		return "", err
	}
	return r.Dispatched, nil
}

// Run runs one command on a terminal limb.
func (c *Client) Run(ctx context.Context, limbID, command string, timeoutMs int) (*wire.RunResult, error) {
	r, err := c.Do(ctx, &wire.Request{Op: wire.OpRun, LimbID: limbID, Command: command, TimeoutMs: &timeoutMs})
	if err != nil {
		return nil, err
	}
	return r.Run, nil
}
