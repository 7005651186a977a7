package viewer

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/coder/websocket"

	"github.com/dvvhq/dvv/pkg/rfbserver"
)

// writeTimeout bounds one message to a browser: a tab that stops reading
// is dropped after it, so it never holds memory or a goroutine for long.
const writeTimeout = 15 * time.Second

// pageProtocol is the subprotocol the page's terminal and event sockets
// speak; the page also offers its key as a subprotocol (auth.go), which is
// never selected.
const pageProtocol = "dvv"

func (s *Server) accept(w http.ResponseWriter, r *http.Request, protos ...string) (*websocket.Conn, bool) {
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: protos})
	if err != nil {
		return nil, false
	}
	return c, true
}

// desktop bridges a WebSocket to an RFB session on the limb's mirror:
// noVNC asks for each update when it has drawn the last, so a slow browser
// gets fewer frames and dvvd keeps at most one update per browser.
func (s *Server) desktop(w http.ResponseWriter, r *http.Request) {
	id, ok := limbFromPath(r)
	if !ok {
		http.Error(w, "bad limb id", http.StatusBadRequest)
		return
	}
	buf, in, err := s.b.Desktop(id)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	defer in.End()
	c, ok := s.accept(w, r, "binary")
	if !ok {
		return
	}
	c.SetReadLimit(2 << 20) // RFB clipboard text is at most 1 MiB
	ctx := r.Context()
	nc := websocket.NetConn(ctx, c, websocket.MessageBinary)
	viewOnly := modeOf(r) != driving || r.URL.Query().Get("view") == "1"
	input := pageInput{DesktopInput: in, s: s, page: r.URL.Query().Get("page"), limb: id}
	cfg := rfbserver.Config{Buffer: buf, Name: id, ViewOnly: viewOnly, Input: input, WriteTimeout: writeTimeout}
	if cs, ok := in.(interface{ CursorShape() *rfbserver.Cursor }); ok {
		cfg.CursorShape = cs.CursorShape // the machine's pointer, as it changes
	}
	err = rfbserver.Serve(ctx, nc, cfg)
	if err != nil && ctx.Err() == nil {
		s.log.Debug("viewer: desktop session ended", "limb", id, "err", err)
	}
}

// terminal sends the limb's output from the start of its scrollback ring,
// then as it comes; binary messages from the page are typed as the person.
func (s *Server) terminal(w http.ResponseWriter, r *http.Request) {
	id, ok := limbFromPath(r)
	if !ok {
		http.Error(w, "bad limb id", http.StatusBadRequest)
		return
	}
	t, err := s.b.Terminal(id)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	defer t.End()
	c, ok := s.accept(w, r, pageProtocol)
	if !ok {
		return
	}
	defer c.CloseNow()
	c.SetReadLimit(64 << 10)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	driver := modeOf(r) == driving
	page := r.URL.Query().Get("page")
	go func() {
		defer cancel()
		for {
			typ, b, err := c.Read(ctx)
			if err != nil {
				return
			}
			if typ == websocket.MessageBinary && driver && len(b) > 0 {
				s.pageDrives(page, id)
				t.Send(b)
			}
		}
	}()
	cols, rows := t.Size()
	if s.send(ctx, c, websocket.MessageText, mustJSON(map[string]any{"cols": cols, "rows": rows})) != nil {
		return
	}
	var since uint64
	for {
		changed := t.Changed()
		data, next, lost, err := t.Read(since, 64<<10)
		if err != nil {
			s.send(ctx, c, websocket.MessageText, mustJSON(map[string]any{"error": err.Error()}))
			return
		}
		if lost > 0 {
			s.send(ctx, c, websocket.MessageText, mustJSON(map[string]any{"lost": lost}))
		}
		since = next
		if len(data) > 0 {
			if s.send(ctx, c, websocket.MessageBinary, data) != nil {
				return
			}
			continue
		}
		if nc, nr := t.Size(); nc != cols || nr != rows {
			cols, rows = nc, nr
			s.send(ctx, c, websocket.MessageText, mustJSON(map[string]any{"cols": cols, "rows": rows}))
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case <-time.After(time.Second):
		}
	}
}

// events streams the limb's head (lease, state) whenever it changes and
// the agent's acts as they happen, for the banner and the overlay.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	id, ok := limbFromPath(r)
	if !ok {
		http.Error(w, "bad limb id", http.StatusBadRequest)
		return
	}
	if _, ok := s.b.Limb(id); !ok {
		http.Error(w, "no such limb", http.StatusNotFound)
		return
	}
	if page := r.URL.Query().Get("page"); modeOf(r) == driving && page != "" {
		sess, err := s.b.Session(id)
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		if !s.pages.add(page, id, sess) {
			sess.End()
			http.Error(w, "dvv viewer: this page is already open", http.StatusConflict)
			return
		}
		defer s.pages.remove(page, id) // the page closed: End hands back what it drove
	}
	c, ok := s.accept(w, r, pageProtocol)
	if !ok {
		return
	}
	defer c.CloseNow()
	ctx := c.CloseRead(r.Context())
	var last []byte
	_, since := s.b.Acts(id, ^uint64(0)) // only acts from now on
	for {
		changed := s.b.Changed()
		l, ok := s.b.Limb(id)
		head := mustJSON(map[string]any{"limb": l, "gone": !ok})
		acts, next := s.b.Acts(id, since)
		since = next
		if !bytes.Equal(head, last) {
			if s.send(ctx, c, websocket.MessageText, head) != nil {
				return
			}
			last = head
		}
		if len(acts) > 0 {
			if s.send(ctx, c, websocket.MessageText, mustJSON(map[string]any{"acts": acts})) != nil {
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case <-time.After(time.Second):
		}
	}
}

// pageDrives counts the page's hold (see pages) as driving the limb, so
// the limb stays the person's while the page is open, even when this
// socket is replaced (the limb reconnected, the socket dropped). The
// socket's own session counts too, for a socket that names no page.
func (s *Server) pageDrives(page, limb string) {
	if sess := s.pages.get(page, limb); sess != nil {
		sess.TakeOver()
	}
}

// pageInput is a desktop socket's input, driving for its page too.
type pageInput struct {
	DesktopInput
	s          *Server
	page, limb string
}

func (p pageInput) Pointer(x, y int, b uint8) {
	p.s.pageDrives(p.page, p.limb)
	p.DesktopInput.Pointer(x, y, b)
}

func (p pageInput) Key(keysym uint32, down bool) {
	p.s.pageDrives(p.page, p.limb)
	p.DesktopInput.Key(keysym, down)
}

func (p pageInput) CutText(text string) {
	p.s.pageDrives(p.page, p.limb)
	p.DesktopInput.CutText(text)
}

func (s *Server) send(ctx context.Context, c *websocket.Conn, typ websocket.MessageType, b []byte) error {
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	return c.Write(ctx, typ, b)
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
