package viewer

import (
	"bufio"
	"errors"
	"fmt"
	"image/png"
	"io"
	"io/fs"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dvvhq/dvv/pkg/recording"
)

// RecordingsDir is what a Backend implements to let the viewer show the
// recordings dvvd keeps (dvv record): the directory they are in. The
// viewer serves files from there only, by their base name, and never a
// path outside it (see openRecording).
type RecordingsDir interface {
	RecordingsDir() (string, error)
}

// maxPlayable bounds a desktop recording the page plays: the player holds
// it in memory. A larger one is exported to a video instead.
const maxPlayable = 256 << 20

// Recording is one row of the recordings page.
type Recording struct {
	Name      string `json:"name"` // the media file's base name, the recording's id in the routes
	Limb      string `json:"limb"`
	Kind      string `json:"kind"` // desktop or terminal
	StartedMs int64  `json:"startedMs"`
	Bytes     int64  `json:"bytes"`
	Acts      int    `json:"acts"`
}

// recordingRoutes registers the recordings page and its API. Every API
// path needs a secret, the read-only one included: watching a run after
// the fact is watching.
func (s *Server) recordingRoutes(public, mux *http.ServeMux) {
	public.HandleFunc("GET /recordings", s.page("recordings.html"))
	mux.HandleFunc("GET /api/recordings", s.listRecordings)
	mux.HandleFunc("GET /api/recordings/{name}/acts", s.recordingActs)
	mux.HandleFunc("GET /api/recordings/{name}/cast", s.recordingCast)
	mux.HandleFunc("GET /api/recordings/{name}/meta", s.recordingMeta)
	mux.HandleFunc("GET /api/recordings/{name}/frame", s.recordingFrame)
}

func (s *Server) recordingsDir() (string, error) {
	rd, ok := s.b.(RecordingsDir)
	if !ok {
		return "", errors.New("this dvvd keeps no recordings")
	}
	return rd.RecordingsDir()
}

func (s *Server) listRecordings(w http.ResponseWriter, r *http.Request) {
	dir, err := s.recordingsDir()
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		http.Error(w, "cannot read the recordings directory: "+err.Error(), http.StatusInternalServerError)
		return
	}
	out := []Recording{}
	for _, e := range entries {
		name := e.Name()
		kind := kindOf(name)
		if kind == "" || !e.Type().IsRegular() {
			continue
		}
		started, ok := recording.Started(name)
		if !ok {
			continue
		}
		stem := strings.TrimSuffix(name, filepath.Ext(name))
		rec := Recording{Name: name, Limb: stem[:strings.LastIndexByte(stem, '-')], Kind: kind, StartedMs: started.UnixMilli()}
		if info, err := e.Info(); err == nil {
			rec.Bytes = info.Size()
		}
		rec.Acts, _ = recording.CountActs(filepath.Join(dir, recording.ActsPath(name)))
		out = append(out, rec)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].StartedMs > out[j].StartedMs })
	writeJSON(w, out)
}

func kindOf(name string) string {
	switch filepath.Ext(name) {
	case ".fbs":
		return "desktop"
	case ".cast":
		return "terminal"
	}
	return ""
}

// openRecording opens a file of the recordings directory by its base name.
// The name is checked first (a recording's own name: no separator, no
// "..", the right extension), and the file is then opened through an
// os.Root of the directory, which refuses anything that leads outside it,
// a symbolic link included.
func (s *Server) openRecording(w http.ResponseWriter, name string, exts ...string) (*os.File, bool) {
	ok := name != "" && len(name) <= 255 && filepath.Base(name) == name && !strings.Contains(name, "..") &&
		!strings.ContainsAny(name, "/\\\x00")
	if ok {
		ok = false
		for _, ext := range exts {
			ok = ok || strings.HasSuffix(name, ext)
		}
	}
	if !ok {
		http.Error(w, fmt.Sprintf("dvv viewer: %q is not the name of a recording (a file name from /api/recordings)", name), http.StatusBadRequest)
		return nil, false
	}
	dir, err := s.recordingsDir()
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return nil, false
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		http.Error(w, "cannot open the recordings directory: "+err.Error(), http.StatusInternalServerError)
		return nil, false
	}
	defer root.Close()
	f, err := openRegular(root, name)
	if err != nil {
		http.Error(w, "dvv viewer: no such recording: "+name, http.StatusNotFound)
		return nil, false
	}
	return f, true
}

func (s *Server) recordingActs(w http.ResponseWriter, r *http.Request) {
	media := r.PathValue("name")
	if _, ok := s.openMedia(w, media); !ok {
		return
	}
	acts := []recording.Act{}
	if f, err := s.openActs(media); err == nil {
		defer f.Close()
		got, err := recording.DecodeActs(f)
		if err != nil {
			http.Error(w, "the act log: "+err.Error(), http.StatusUnprocessableEntity)
			return
		}
		acts = append(acts, got...)
	}
	writeJSON(w, acts)
}

// openMedia checks that name is a recording there is; the caller only
// needed to know.
func (s *Server) openMedia(w http.ResponseWriter, name string) (string, bool) {
	f, ok := s.openRecording(w, name, ".fbs", ".cast")
	if ok {
		f.Close()
	}
	return name, ok
}

// openActs opens the act log beside a checked media name.
func (s *Server) openActs(media string) (*os.File, error) {
	dir, err := s.recordingsDir()
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return openRegular(root, recording.ActsPath(media))
}

// openRegular opens a regular file of root. O_NONBLOCK keeps a named pipe
// put there from holding the request until a writer comes; anything but a
// regular file is then refused as missing.
func openRegular(root *os.Root, name string) (*os.File, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fs.ErrNotExist
	}
	return f, nil
}

// recordingCast sends a terminal recording as it is: the page plays its
// events on the clock into xterm.js.
func (s *Server) recordingCast(w http.ResponseWriter, r *http.Request) {
	f, ok := s.openRecording(w, r.PathValue("name"), ".cast")
	if !ok {
		return
	}
	defer f.Close()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.Copy(w, bufio.NewReader(f))
}

// recordingMeta is what the page needs before playing: the length, and a
// desktop's size or a terminal's grid.
func (s *Server) recordingMeta(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if kindOf(name) == "terminal" {
		f, ok := s.openRecording(w, name, ".cast")
		if !ok {
			return
		}
		defer f.Close()
		hdr, evs, err := recording.DecodeCast(f)
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnprocessableEntity)
			return
		}
		end := 0.0
		if len(evs) > 0 {
			end = evs[len(evs)-1].T
		}
		writeJSON(w, map[string]any{"kind": "terminal", "durationMs": int64(math.Ceil(end * 1000)), "cols": hdr.Width, "rows": hdr.Height})
		return
	}
	done, ok := s.players.render(r)
	if !ok {
		return
	}
	defer done()
	pl, ok := s.player(w, name)
	if !ok {
		return
	}
	img, err := pl.Frame(0)
	if err != nil {
		http.Error(w, err.Error(), http.StatusUnprocessableEntity)
		return
	}
	writeJSON(w, map[string]any{"kind": "desktop", "durationMs": pl.DurationMs(), "width": img.Rect.Dx(), "height": img.Rect.Dy()})
}

// recordingFrame renders a desktop recording at ?ms= as a PNG: dvv's own
// RFB client replays the file (the one `dvv record export` renders with),
// so the page shows exactly the recorded pixels and needs no decoder of
// its own.
func (s *Server) recordingFrame(w http.ResponseWriter, r *http.Request) {
	ms, err := strconv.ParseUint(r.URL.Query().Get("ms"), 10, 32)
	if err != nil {
		http.Error(w, "dvv viewer: ?ms= wants the milliseconds since the recording's start", http.StatusBadRequest)
		return
	}
	done, ok := s.players.render(r)
	if !ok {
		return
	}
	defer done()
	pl, ok := s.player(w, r.PathValue("name"))
	if !ok {
		return
	}
	img, err := pl.Frame(uint32(ms))
	if err != nil {
		http.Error(w, err.Error(), http.StatusUnprocessableEntity)
		return
	}
	// A client that does not read its frame gives the slot back in time.
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(frameWriteTime))
	w.Header().Set("Content-Type", "image/png")
	(&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(w, img)
}

// players keeps the desktop recordings being played, a few at most: a
// page plays forward frame after frame, which a kept player decodes
// incrementally.
type players struct {
	mu      sync.Mutex
	m       map[string]*keptPlayer
	renders chan struct{} // a slot per frame being rendered (see render)
}

// maxRenders bounds the frames rendered at once, across recordings: each
// is a full-size picture (128 MiB on an 8192x4096 desktop) until its PNG
// is written, so requests in flight, whoever sends them, cannot add up
// to more than a few.
const maxRenders = 2

// frameWriteTime is how long a frame's PNG may take to send, as the live
// pages' sockets drop a viewer that stops reading.
const frameWriteTime = 15 * time.Second

// render waits for a rendering slot; done gives it back. false when the
// request ended first.
func (p *players) render(r *http.Request) (done func(), ok bool) {
	p.mu.Lock()
	if p.renders == nil {
		p.renders = make(chan struct{}, maxRenders)
	}
	slots := p.renders
	p.mu.Unlock()
	select {
	case slots <- struct{}{}:
		return func() { <-slots }, true
	case <-r.Context().Done():
		return nil, false
	}
}

type keptPlayer struct {
	pl     *recording.Player
	used   time.Time
	mod    time.Time // the file's when it was read
	loaded time.Time
}

const reloadAfter = 3 * time.Second

// keptPlayers and playerIdle bound what players hold: each keeps its
// file in memory (at most maxPlayable).
const (
	keptPlayers = 2
	playerIdle  = 5 * time.Minute
)

func (s *Server) player(w http.ResponseWriter, name string) (*recording.Player, bool) {
	f, ok := s.openRecording(w, name, ".fbs")
	if !ok {
		return nil, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return nil, false
	}
	if st.Size() > maxPlayable {
		http.Error(w, fmt.Sprintf("dvv viewer: %s is %d MiB, more than the page plays (%d MiB): export it with `dvv record export FILE --mp4 --acts`", name, st.Size()>>20, maxPlayable>>20), http.StatusRequestEntityTooLarge)
		return nil, false
	}
	p := &s.players
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string]*keptPlayer{}
	}
	for n, k := range p.m {
		if time.Since(k.used) > playerIdle {
			k.pl.Close()
			delete(p.m, n)
		}
	}
	// A recording still being written is read again, at most every few
	// seconds, so that its end can be played too.
	if k := p.m[name]; k != nil && (k.mod.Equal(st.ModTime()) || time.Since(k.loaded) < reloadAfter) {
		k.used = time.Now()
		return k.pl, true
	}
	pl, err := recording.NewPlayer(s.ctx, f)
	if err != nil {
		http.Error(w, fmt.Sprintf("dvv viewer: %s cannot be played: %v", name, err), http.StatusUnprocessableEntity)
		return nil, false
	}
	if old := p.m[name]; old != nil {
		old.pl.Close()
	}
	for len(p.m) >= keptPlayers { // forget the least recently used
		var oldest string
		for n, k := range p.m {
			if oldest == "" || k.used.Before(p.m[oldest].used) {
				oldest = n
			}
		}
		p.m[oldest].pl.Close()
		delete(p.m, oldest)
	}
	p.m[name] = &keptPlayer{pl: pl, used: time.Now(), mod: st.ModTime(), loaded: time.Now()}
	return pl, true
}
