// Package client is the typed Go client of dvvd's control socket. The dvv
// CLI, the dvvmcp bridge and the tests all talk to dvvd through it.
//
// A Client holds one connection (one attachment) and may carry many
// requests at once: each gets an id and answers are matched to it.
package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dvvhq/dvv/pkg/wire"
)

// Options describe the attachment this client makes.
type Options struct {
	Name    string // attachment name shown as lease holder (e.g. "claude-code", "shell")
	Token   string // policy token (DVV_TOKEN); empty = the socket owner's own access
	Session string // shell session key: CLI calls with the same key share one attachment
	// InlineFiles has this process move the bytes of a local file a
	// request names (files get and put, screen's out, group_run's outDir):
	// they travel inside the request or answer and the file is read or
	// written here, so dvvd never touches the caller's tree (see local.go).
	InlineFiles bool
}

// Client is one attachment to dvvd. With gives views of it that share the
// connection and carry call options of their own.
type Client struct {
	*link
	opts callOptions

	Info *wire.DaemonInfo
}

// link is the connection and attachment every view of a Client shares.
type link struct {
	// rt, when set, answers every request instead of a connection (Over).
	rt     RoundTrip
	remote bool // reached over ssh://: a local path means nothing to that dvvd
	inline bool // Options.InlineFiles

	conn net.Conn
	wmu  sync.Mutex
	w    *bufio.Writer

	mu      sync.Mutex
	pending map[string]chan *wire.Reply
	onProg  map[string]func(*wire.TransferInfo) // progress lines, by request id (progress.go)
	events  chan *wire.Event
	err     error
	said    *wire.Error // an answer with no id: why dvvd is closing this connection (BUSY, TIMEOUT)
	done    chan struct{}
	nextID  atomic.Uint64
	// closeOnce ends an Over client's done (a connection's ends with readLoop).
	closeOnce sync.Once
}

// Dial connects to the socket at path and attaches. A socket nobody answers
// on gives a DAEMON_UNAVAILABLE *wire.Error saying how to start dvvd; a
// socket another user could have put there (see CheckDir), or a listener
// running as another user, gives SOCKET_UNSAFE before anything is sent.
// A path of the form ssh://[user@]host[:port][/id] reaches that host's dvvd
// through OpenSSH (see ssh.go).
func Dial(ctx context.Context, path string, o Options) (*Client, error) {
	c, _, err := dial(ctx, path, o, nil)
	return c, err
}

// Ping dials and attaches as Dial does, and sends a ping in the same write
// as the attach request: ping needs no attachment, so the two take one
// round trip, not two. It returns the ping's answer; the client's Info is
// the attachment's.
func Ping(ctx context.Context, path string, o Options) (*Client, *wire.PingAnswer, error) {
	c, r, err := dial(ctx, path, o, wire.PingArgs{})
	if err != nil {
		return nil, nil, err
	}
	pong, err := wire.DecodeAnswer[wire.PingAnswer](r)
	if err != nil {
		c.Close()
		return nil, nil, undecodable(r, err)
	}
	return c, pong, nil
}

func dial(ctx context.Context, path string, o Options, then wire.Args) (*Client, *wire.Reply, error) {
	if path == "" {
		path = DefaultSocket()
	}
	if IsRemote(path) {
		sc, err := dialSSH(ctx, path)
		if err != nil {
			return nil, nil, err
		}
		c, resp, err := attach(ctx, sc, o, then)
		if err != nil {
			return nil, nil, sc.explain(err)
		}
		c.remote = true
		return c, resp, nil
	}
	conn, err := DialSocket(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	return attach(ctx, conn, o, then)
}

// DialSocket connects to the dvvd socket at path after the socket rules:
// the token, and a password on host_add, go to whoever listens there, so
// it checks that is this user's dvvd before a byte is sent.
func DialSocket(ctx context.Context, path string) (net.Conn, error) {
	if err := checkSocket(path); err != nil {
		return nil, err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, unavailable(path, errors.Unwrap(err))
	}
	if uid, err := PeerUID(conn.(*net.UnixConn)); err != nil || uid != os.Getuid() {
		conn.Close()
		if err != nil {
			return nil, unsafeSocket(fmt.Sprintf("cannot tell who listens on %s (%v)", path, err))
		}
		return nil, unsafeSocket(fmt.Sprintf("the process listening on %s runs as %s, not as you (%s)", path, Owner(uid), Owner(os.Getuid())))
	}
	return conn, nil
}

// attach starts the client on conn and makes its attachment. A then
// request (one that needs no attachment: dvvd serves it whatever the
// attach's fate) goes out in the same write, and its answer is returned.
func attach(ctx context.Context, conn net.Conn, o Options, then wire.Args) (*Client, *wire.Reply, error) {
	c := &Client{link: &link{conn: conn, inline: o.InlineFiles, w: bufio.NewWriter(conn), pending: map[string]chan *wire.Reply{},
		onProg: map[string]func(*wire.TransferInfo){},
		events: make(chan *wire.Event, 256), done: make(chan struct{})}}
	go c.readLoop()
	reqs := []wire.Args{wire.AttachArgs{Envelope: wire.Envelope{Name: o.Name, Token: o.Token, Session: o.Session}}}
	if then != nil {
		if !wire.NoAttach(then.Op()) {
			c.Close()
			return nil, nil, wire.Errorf(wire.BadRequest, "%q cannot go out with the attach: it needs the attachment", then.Op())
		}
		reqs = append(reqs, then)
	}
	resps, err := c.doAll(ctx, reqs, nil)
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	att, err := wire.DecodeAnswer[wire.AttachAnswer](resps[0])
	if err != nil {
		c.Close()
		return nil, nil, undecodable(resps[0], err)
	}
	c.Info = att.Daemon
	if then != nil {
		return c, resps[1], nil
	}
	return c, nil, nil
}

// Close ends the connection.
func (c *Client) Close() error {
	if c.conn == nil { // Over: no connection; the client is done
		c.closeOnce.Do(func() { close(c.done) })
		return nil
	}
	return c.conn.Close()
}

// Done is closed when the connection has ended.
func (c *Client) Done() <-chan struct{} { return c.done }

// Events delivers subscription events (after a subscribe request).
func (c *Client) Events() <-chan *wire.Event { return c.events }

func (c *Client) readLoop() {
	r := bufio.NewReaderSize(c.conn, 64<<10)
	var err error
	for {
		var line []byte
		line, err = readLine(r)
		if err != nil {
			break
		}
		resp, rerr := wire.ReadReply(line)
		if rerr != nil {
			continue
		}
		if resp.Result == wire.ResultProgress {
			c.mu.Lock()
			fn := c.onProg[string(resp.ID)]
			c.mu.Unlock()
			var p wire.ProgressLine
			if fn != nil && json.Unmarshal(line, &p) == nil && p.Progress != nil {
				fn(p.Progress)
			}
			continue
		}
		if resp.Result == wire.ResultEvent {
			var e wire.EventLine
			if json.Unmarshal(line, &e) == nil && e.Event != nil {
				select {
				case c.events <- e.Event:
				default: // a slow reader loses events, never blocks answers
				}
			}
			continue
		}
		c.mu.Lock()
		if len(resp.ID) == 0 && resp.Result == wire.ResultError {
			c.said = resp.Err() // this client always sends ids: it is about the connection
		}
		ch := c.pending[string(resp.ID)]
		delete(c.pending, string(resp.ID))
		c.mu.Unlock()
		if ch != nil {
			ch <- resp
		}
	}
	c.mu.Lock()
	c.err = err
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	c.mu.Unlock()
	close(c.done)
}

func readLine(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, isPrefix, err := r.ReadLine()
		if err != nil {
			return nil, err
		}
		buf = append(buf, chunk...)
		if len(buf) > wire.MaxLine*2 {
			return nil, errors.New("answer line too long")
		}
		if !isPrefix {
			return buf, nil
		}
	}
}

// closed is the error for a request on a connection that ended: what
// dvvd said when it closed it (BUSY when its limits were reached), else
// ErrClosed.
func (c *Client) closed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.said != nil {
		return c.said
	}
	return ErrClosed
}

// ErrClosed is returned for requests on a connection that has ended.
var ErrClosed = &wire.Error{Code: wire.DaemonUnavailable, Message: "the connection to dvvd ended",
	Next: "reconnect; if dvvd restarted, leases were lost and must be acquired again"}

// Do sends one op's arguments (wire.ClickArgs, …, as a value or a
// pointer) and waits for the answer line, read as a generic client reads
// any line (its typed answer is wire.DecodeAnswer of it; the typed methods
// do that). A coded failure comes back as a *wire.Error (with the
// answer's observation, if any) beside the line. Every typed call goes
// through Do, and so through the view's call options (With) and
// Options.InlineFiles.
func (c *Client) Do(ctx context.Context, a wire.Args) (*wire.Reply, error) {
	var r *wire.Reply
	var err error
	if mv := c.mover(a); mv != nil {
		r, err = c.moveLocal(ctx, a, mv)
	} else {
		r, err = c.send(ctx, a)
	}
	if c.opts.line != nil {
		*c.opts.line = r
	}
	return r, err
}

// do is Do; onProgress, when set, receives the request's progress lines.
func (c *Client) do(ctx context.Context, a wire.Args, onProgress func(*wire.TransferInfo)) (*wire.Reply, error) {
	resps, err := c.doAll(ctx, []wire.Args{a}, onProgress)
	if len(resps) > 0 {
		return resps[0], err
	}
	return nil, err
}

// doAll sends reqs in one write and waits for each answer in turn: the
// first failure ends the wait and is returned with the answers so far.
// onProgress, when set, receives their progress lines.
func (c *Client) doAll(ctx context.Context, reqs []wire.Args, onProgress func(*wire.TransferInfo)) ([]*wire.Reply, error) {
	if c.rt != nil {
		return c.roundTrips(ctx, reqs)
	}
	ids := make([]string, len(reqs))
	chans := make([]chan *wire.Reply, len(reqs))
	var lines []byte
	for i, req := range reqs {
		ids[i] = strconv.FormatUint(c.nextID.Add(1), 10)
		line, err := encodeArgs(req, json.RawMessage(ids[i]))
		if err != nil {
			return nil, wire.Errorf(wire.BadRequest, "encode request: %v", err)
		}
		lines = append(append(lines, line...), '\n')
		chans[i] = make(chan *wire.Reply, 1)
	}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, c.closed()
	}
	for i, id := range ids {
		c.pending[id] = chans[i]
		if onProgress != nil {
			c.onProg[id] = onProgress
			defer c.forgetProgress(id)
		}
	}
	c.mu.Unlock()

	c.wmu.Lock()
	c.w.Write(lines)
	err := c.w.Flush()
	c.wmu.Unlock()
	if err != nil {
		for _, id := range ids {
			c.forget(id)
		}
		// dvvd may have said why before closing (BUSY): read it first.
		select {
		case <-c.done:
		case <-time.After(time.Second):
		}
		return nil, c.closed()
	}
	var resps []*wire.Reply
	for i, ch := range chans {
		resp, err := c.wait(ctx, ids[i], ch)
		if resp != nil {
			resps = append(resps, resp)
		}
		if err != nil {
			for _, id := range ids[i+1:] {
				c.forget(id)
			}
			return resps, err
		}
	}
	return resps, nil
}

// wait waits for the answer to request id.
func (c *Client) wait(ctx context.Context, id string, ch chan *wire.Reply) (*wire.Reply, error) {
	select {
	case resp, ok := <-ch:
		if !ok {
			return nil, c.closed()
		}
		if e := resp.Err(); e != nil {
			return resp, e
		}
		return resp, nil
	case <-ctx.Done():
		c.forget(id)
		c.withdraw(id)
		return nil, &wire.Error{Code: wire.Timeout, Message: "no answer before the client's deadline: " + ctx.Err().Error(),
			Next: "dvvd was asked to withdraw the op; read `history` for the limb to learn how far it got"}
	}
}

// withdraw asks dvvd to stop the work of a request this client gave up on
// (op cancel). Its answer, and the cancelled request's, are dropped.
func (c *Client) withdraw(id string) {
	line, _ := encodeArgs(wire.CancelArgs{Cancels: json.RawMessage(id)}, json.RawMessage(strconv.FormatUint(c.nextID.Add(1), 10)))
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.w.Write(line)
	c.w.WriteByte('\n')
	c.w.Flush()
}

func (c *Client) forget(id string) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// undecodable is the error for an answer line its op's answer cannot be
// read from.
func undecodable(r *wire.Reply, err error) error {
	return wire.Errorf(wire.Internal, "dvvd's %s answer could not be read: %v", r.Result, err)
}

// encodeArgs is a's request line with the id given.
func encodeArgs(a wire.Args, id json.RawMessage) ([]byte, error) {
	e := wire.Envelop(a)
	e.Head().ID = id
	return json.Marshal(e)
}

// Code returns err's wire code, or "" when err is not a coded error.
func Code(err error) wire.Code {
	var e *wire.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// IsCode reports whether err carries the code.
func IsCode(err error, code wire.Code) bool { return Code(err) == code }
