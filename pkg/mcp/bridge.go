package mcp

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// Options configure a bridge.
type Options struct {
	Socket string // dvvd's socket; "" = $DVV_SOCKET, else the default instance
	Token  string // policy token (DVV_TOKEN); "" = the socket owner's own access
	// TokenErr, when set, answers every tool call instead of dialling (an
	// empty DVV_TOKEN: see client.TokenFromEnv).
	TokenErr error
	// JPEG asks dvvd for each screen in the smaller of PNG and JPEG (format
	// auto): JPEG where it is smaller (photographs, video), at the cost of
	// exact pixels there; PNG where JPEG would be bigger (text, flat UI).
	JPEG bool
	// DefaultName names the attachment when the MCP client gives no name.
	DefaultName string
	// DialTimeout bounds one attempt to reach dvvd (default 3 s).
	DialTimeout time.Duration
	// Image is the budget for a screen read without scale: the picture is
	// scaled by 1/2 (1/4, 1/8) until it fits, so the MCP client does not
	// resize it behind the imageSpace line's back. Zero = DefaultImageBudget;
	// NoImageBudget sends every screen at full size.
	Image ImageBudget
	// Sets are the tool sets served beside the reference's tools (ParseSets);
	// none by default.
	Sets []string
}

// ImageBudget is the largest picture the bridge hands an MCP client.
type ImageBudget struct {
	MaxEdge   int // longest edge in pixels
	MaxPixels int // width × height
}

// DefaultImageBudget is what MCP clients such as Claude's take without
// resizing: a long edge up to 1568 px and about 1.15 megapixels.
var DefaultImageBudget = ImageBudget{MaxEdge: 1568, MaxPixels: 1_150_000}

// NoImageBudget turns the budget off.
var NoImageBudget = ImageBudget{MaxEdge: -1, MaxPixels: -1}

func (b ImageBudget) orDefault() ImageBudget {
	if b == (ImageBudget{}) {
		return DefaultImageBudget
	}
	return b
}

// attachment is the bridge's one connection to dvvd. It is dialled on the
// first tool call (when the MCP client's name is known) and dialled again,
// transparently, when the connection has ended (dvvd restarted).
type attachment struct {
	opts Options

	mu      sync.Mutex
	c       *client.Client
	name    string
	lastPID int  // pid of the dvvd last attached to
	dropped bool // a connection existed and ended: leases went with it
}

// get returns a live client, dialling if needed. note is non-empty when
// this call re-established a lost connection: the agent must hear that its
// leases are gone.
func (a *attachment) get(ctx context.Context, name string) (c *client.Client, note string, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.c != nil {
		select {
		case <-a.c.Done():
			a.c.Close()
			a.c, a.dropped = nil, true
		default:
			return a.c, "", nil
		}
	}
	if a.opts.TokenErr != nil {
		return nil, "", a.opts.TokenErr
	}
	if name == "" {
		name = a.opts.DefaultName
	}
	// The MCP client chose its name; dvvd takes only a printable, bounded
	// one (it is shown to people as the lease holder).
	name = wire.CleanLabel(name, wire.MaxNameBytes)
	timeout := a.opts.DialTimeout
	if timeout <= 0 {
		timeout = 3 * time.Second
	}
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err = client.Dial(dctx, a.opts.Socket, client.Options{Name: name, Token: a.opts.Token})
	if err != nil {
		return nil, "", err
	}
	a.c, a.name = c, name
	if a.dropped {
		a.dropped = false
		note = "The connection to dvvd was lost and has been re-established"
		if c.Info != nil && a.lastPID != 0 && c.Info.PID != a.lastPID {
			note = fmt.Sprintf("dvvd restarted (pid %d, was %d); the bridge reconnected", c.Info.PID, a.lastPID)
		}
		note += ": every lease this bridge held is gone and typing fences start armed. " +
			"Acquire again with dvv_control and read dvv_screen before typing."
	}
	if c.Info != nil {
		a.lastPID = c.Info.PID
	}
	return c, note, nil
}

// drop forgets a client whose connection failed, so the next call redials.
func (a *attachment) drop(c *client.Client) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.c == c {
		a.c.Close()
		a.c, a.dropped = nil, true
	}
}

func (a *attachment) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.c != nil {
		a.c.Close()
		a.c = nil
	}
}

// retrySafe reports whether a call that met a dead connection may be sent
// again once on a fresh one: its spec says it changes nothing.
func retrySafe(op string) bool {
	s, ok := wire.Spec(op)
	return ok && s.RetrySafe
}

// do sends one op's arguments through the attachment, reconnecting when
// dvvd restarted.
func (a *attachment) do(ctx context.Context, name string, args wire.Args) (*wire.Reply, string, error) {
	var notes string
	for attempt := 0; ; attempt++ {
		c, note, err := a.get(ctx, name)
		if note != "" {
			notes = note
		}
		if err != nil {
			return nil, notes, err
		}
		resp, err := send(ctx, c, args)
		if err == client.ErrClosed {
			a.drop(c)
			if attempt == 0 && retrySafe(args.Op()) {
				continue
			}
			return nil, notes, &wire.Error{Code: wire.DaemonUnavailable,
				Message: "the connection to dvvd ended during the call; whether it took effect is unknown",
				Next:    "call dvv_status (or dvv_limbs) to see the current state; the next call reconnects, and leases held before are gone"}
		}
		return resp, notes, err
	}
}
