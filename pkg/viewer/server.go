package viewer

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
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

// cookieName carries the secret after the first visit.
const cookieName = "dvv_viewer"

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

// URL is the address to open: it carries the secret once, which the page
// moves into a cookie. limb, when set, opens that limb's page.
func (s *Server) URL(readOnly bool, limb string) string {
	k := s.full
	if readOnly {
		k = s.readOnly
	}
	path := "/"
	if limb != "" {
		path = "/limb/" + url.PathEscape(limb)
	}
	return fmt.Sprintf("http://127.0.0.1:%s%s?k=%s", s.port, path, k)
}

// Addr is the listening address.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server and every session.
func (s *Server) Close() error {
	s.cancel()
	return s.srv.Close()
}

type mode int

const (
	denied mode = iota
	watching
	driving
)

type ctxKey struct{}

func modeOf(r *http.Request) mode { m, _ := r.Context().Value(ctxKey{}).(mode); return m }

// guard lets a request through only from this machine's browser of the
// person holding the secret: Host must be ours (no DNS rebinding), an
// Origin, when sent, must be ours (no cross-site requests or WebSockets;
// state changes must send one), and the secret must come in the cookie
// (or once in ?k=, which is moved into the cookie).
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if host != "127.0.0.1:"+s.port && host != "localhost:"+s.port {
			http.Error(w, "dvv viewer: wrong Host header", http.StatusForbidden)
			return
		}
		origin := r.Header.Get("Origin")
		if origin != "" && origin != "http://"+host {
			http.Error(w, "dvv viewer: requests from another origin are refused", http.StatusForbidden)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead && origin == "" {
			http.Error(w, "dvv viewer: a state change needs the Origin header", http.StatusForbidden)
			return
		}
		if k := r.URL.Query().Get("k"); k != "" {
			if s.check(k) == denied {
				http.Error(w, "dvv viewer: this link's secret is not valid (dvvd restarted?); run `dvv viewer` for a fresh one", http.StatusForbidden)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: cookieName, Value: k, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			q := r.URL.Query()
			q.Del("k")
			u := *r.URL
			u.RawQuery = q.Encode()
			http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
			return
		}
		c, err := r.Cookie(cookieName)
		m := denied
		if err == nil {
			m = s.check(c.Value)
		}
		if m == denied {
			http.Error(w, "dvv viewer: open the link `dvv viewer` prints (it carries this dvvd's secret)", http.StatusForbidden)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, m)))
	})
}

func (s *Server) check(k string) mode {
	switch {
	case subtle.ConstantTimeCompare([]byte(k), []byte(s.full)) == 1:
		return driving
	case subtle.ConstantTimeCompare([]byte(k), []byte(s.readOnly)) == 1:
		return watching
	}
	return denied
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.page("index.html"))
	mux.HandleFunc("GET /limb/{id}", s.page("limb.html"))
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(s.assets)))
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
	return s.guard(mux)
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
