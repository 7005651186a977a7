package viewer

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strings"
)

// How the page proves it holds a secret. Not a cookie: a browser sends a
// 127.0.0.1 cookie to every port on 127.0.0.1, so any local server the
// person visits would receive it. The page keeps the secret in its tab's
// sessionStorage (scoped to this origin, port included) and sends it:
//
//   - on fetches, as "Authorization: Bearer <secret>";
//   - on WebSockets, which cannot carry headers from a page, as one of the
//     offered subprotocols, keyProtocolPrefix+secret; the server never
//     selects that one, so the secret is not echoed back.
//
// The secret reaches the page in the link's fragment (#k=…), which the
// browser never sends to a server; the page moves it into sessionStorage
// and drops it from the address bar.
const (
	keyProtocolPrefix = "dvv-key."
	// pageHeader names the page a Take over came from, so that closing
	// that page hands the limb back (see sessions).
	pageHeader = "X-Dvv-Page"
)

type mode int

const (
	denied mode = iota
	watching
	driving
)

type ctxKey struct{}

func modeOf(r *http.Request) mode { m, _ := r.Context().Value(ctxKey{}).(mode); return m }

func (s *Server) check(k string) mode {
	switch {
	case k == "":
		return denied
	case subtle.ConstantTimeCompare([]byte(k), []byte(s.full)) == 1:
		return driving
	case subtle.ConstantTimeCompare([]byte(k), []byte(s.readOnly)) == 1:
		return watching
	}
	return denied
}

// presentedKey is the secret a request carries: the bearer header, or on
// a WebSocket upgrade the key subprotocol.
func presentedKey(r *http.Request) string {
	if a := r.Header.Get("Authorization"); a != "" {
		k, ok := strings.CutPrefix(a, "Bearer ")
		if !ok {
			return ""
		}
		return strings.TrimSpace(k)
	}
	for _, h := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(h, ",") {
			if k, ok := strings.CutPrefix(strings.TrimSpace(p), keyProtocolPrefix); ok {
				return k
			}
		}
	}
	return ""
}

// sameOrigin refuses what a page of another origin, or a name that
// resolves to 127.0.0.1 (DNS rebinding), could send: Host must be ours,
// an Origin, when sent, ours too. Every path goes through it.
func (s *Server) sameOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if host != "127.0.0.1:"+s.port && host != "localhost:"+s.port {
			http.Error(w, "dvv viewer: wrong Host header (open the viewer at 127.0.0.1:"+s.port+")", http.StatusForbidden)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && origin != "http://"+host {
			http.Error(w, "dvv viewer: requests from another origin are refused", http.StatusForbidden)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Referrer-Policy", "no-referrer")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		next.ServeHTTP(w, r)
	})
}

// authorized lets through only requests of this viewer's own pages that
// carry a secret: the mode it grants goes into the request's context. A
// request another site's page made (Sec-Fetch-Site), a WebSocket without
// our Origin, and a state change without one are refused even with a
// secret.
func (s *Server) authorized(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
			http.Error(w, "dvv viewer: only the viewer's own pages may call it", http.StatusForbidden)
			return
		}
		upgrade := strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
		if origin == "" && (upgrade || (r.Method != http.MethodGet && r.Method != http.MethodHead)) {
			http.Error(w, "dvv viewer: a WebSocket or a state change needs the Origin header", http.StatusForbidden)
			return
		}
		m := s.check(presentedKey(r))
		if m == denied {
			http.Error(w, "dvv viewer: no valid secret (dvvd restarted?): open the viewer with `dvv viewer`", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, m)))
	})
}
