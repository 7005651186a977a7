package viewer

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Server is a running viewer.
type Server struct {
	b        Backend
	log      *slog.Logger
	ln       net.Listener
	srv      *http.Server
	port     string
	full     string // secret of a session that may take over
	readOnly string // secret of a session that only watches
	assets   fs.FS
	ctx      context.Context
	cancel   context.CancelFunc
	pages    pages // the limb pages open now, for Take over and its hand back
	// players are the desktop recordings being played (recordings.go).
	players players
}

// Start listens on 127.0.0.1 (port 0 picks one) with fresh secrets.
func Start(b Backend, port int, log *slog.Logger) (*Server, error) {
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{b: b, log: log, ln: ln, full: newSecret(), readOnly: newSecret(), assets: assetFS(), ctx: ctx, cancel: cancel}
	_, s.port, _ = net.SplitHostPort(ln.Addr().String())
	s.srv = &http.Server{Handler: s.routes(), BaseContext: func(net.Listener) context.Context { return ctx }}
	go s.srv.Serve(limit(s.srv, ln))
	return s, nil
}

func newSecret() string {
	b := make([]byte, 24)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// URL is the address to open: its fragment carries the secret, which the
// browser never sends to a server; the page keeps it in its tab (see
// auth.go). limb, when set, opens that limb's page.
func (s *Server) URL(readOnly bool, limb string) string {
	k := s.full
	if readOnly {
		k = s.readOnly
	}
	path := "/"
	if limb != "" {
		path = "/limb/" + url.PathEscape(limb)
	}
	return fmt.Sprintf("http://127.0.0.1:%s%s#k=%s", s.port, path, k)
}

// Addr is the listening address.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server and every session.
func (s *Server) Close() error {
	s.cancel()
	return s.srv.Close()
}

// routes: the pages and their scripts are the same for everyone and carry
// no data, so a browser loads them without a secret (a navigation cannot
// send one); everything that reads or drives a limb needs it.
func (s *Server) routes() http.Handler {
	public := http.NewServeMux()
	public.HandleFunc("GET /{$}", s.page("index.html"))
	public.HandleFunc("GET /limb/{id}", s.page("limb.html"))
	public.HandleFunc("GET /favicon.ico", serveFavicon)
	public.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(s.assets)))
	mux := http.NewServeMux()
	public.Handle("/", s.authorized(mux))
	mux.HandleFunc("GET /api/info", s.info)
	mux.HandleFunc("GET /api/limbs", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, s.b.Limbs()) })
	mux.HandleFunc("GET /api/limb/{id}", func(w http.ResponseWriter, r *http.Request) {
		l, ok := s.b.Limb(r.PathValue("id"))
		if !ok {
			http.Error(w, "no such limb", http.StatusNotFound)
			return
		}
		writeJSON(w, l)
	})
	mux.HandleFunc("GET /thumb/{id}", s.thumb)
	mux.HandleFunc("POST /api/limb/{id}/{action}", s.control)
	mux.HandleFunc("POST /api/all/{action}", s.control)
	mux.HandleFunc("GET /ws/desktop/{id}", s.desktop)
	mux.HandleFunc("GET /ws/term/{id}", s.terminal)
	mux.HandleFunc("GET /ws/events/{id}", s.events)
	s.recordingRoutes(public, mux)
	return s.sameOrigin(public)
}

func (s *Server) page(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := fs.ReadFile(s.assets, name)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' blob: data:; style-src 'self' 'unsafe-inline'; connect-src 'self'")
		w.Write(b)
	}
}

// info says what this build can show and whether this session may drive.
func (s *Server) info(w http.ResponseWriter, r *http.Request) {
	_, noVNC := fs.Stat(s.assets, "dist/novnc/core/rfb.js")
	_, xterm := fs.Stat(s.assets, "dist/xterm/xterm.mjs")
	writeJSON(w, map[string]any{"readOnly": modeOf(r) != driving, "novnc": noVNC == nil, "xterm": xterm == nil})
}

func (s *Server) thumb(w http.ResponseWriter, r *http.Request) {
	b, err := s.b.Thumbnail(r.PathValue("id"), 320)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "image/jpeg")
	w.Write(b)
}

func (s *Server) control(w http.ResponseWriter, r *http.Request) {
	if modeOf(r) != driving {
		http.Error(w, "dvv viewer: this is a read-only session", http.StatusForbidden)
		return
	}
	action := r.PathValue("action")
	switch action {
	case "takeover", "handback", "pause", "resume":
	default:
		http.Error(w, "unknown action", http.StatusNotFound)
		return
	}
	id := r.PathValue("id")
	if id == "" && (action == "takeover" || action == "handback") {
		http.Error(w, "takeover and handback need a limb", http.StatusBadRequest)
		return
	}
	if action == "takeover" {
		if sess := s.pages.get(r.Header.Get(pageHeader), id); sess != nil {
			sess.TakeOver() // this page drove: closing it hands the limb back
			writeJSON(w, map[string]string{"done": action})
			return
		}
	}
	if err := s.b.Control(id, action); err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	writeJSON(w, map[string]string{"done": action})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil && !errors.Is(err, net.ErrClosed) {
		return
	}
}

// limbFromPath reads {id}, refusing odd ones early.
func limbFromPath(r *http.Request) (string, bool) {
	id := r.PathValue("id")
	return id, id != "" && len(id) <= 64 && !strings.ContainsAny(id, "/\\")
}
