package daemon

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/recording"
	"github.com/dvvhq/dvv/pkg/wire"
)

// recordCap ends a recording cleanly when its file reaches it.
const recordCap = 1 << 30

// actQueue bounds the acts waiting to be written: an act never waits for
// the disk; past this many, acts are counted as dropped.
const actQueue = 256

// recorder is one limb's running recording.
type recorder struct {
	info     wire.Recording
	started  time.Time
	cancel   context.CancelFunc
	done     chan struct{} // closed when the media file is closed
	actsDone chan struct{} // closed when the act log is written and closed
	acts     chan actRecord
	// marker puts an act into the media file itself where the format has
	// a place for it (asciicast markers); nil for FBS.
	marker func(at time.Time, label string)
	// output puts bytes into a terminal recording's output stream (a
	// run's output, which never passes through the terminal); nil for FBS.
	output func(at time.Time, data []byte)

	mu      sync.Mutex
	dropped int
	ended   string
}

// stopSettle bounds how long stop waits for the recording's files to be
// complete before it answers (the acts still queued, the media's close).
const stopSettle = 5 * time.Second

// actRecord is one act beside the frames, as recording.ReadActs reads it
// back: one type for the writer and the readers (list, export, the
// viewer's player).
type actRecord = recording.Act

// recordingsDir is $XDG_STATE_HOME/dvv/recordings (~/.local/state/…).
func recordingsDir() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		base = filepath.Join(home, ".local", "state")
	}
	dir := filepath.Join(base, "dvv", "recordings")
	return dir, os.MkdirAll(dir, 0o700)
}

var _ = register(wire.OpRecord, typed(opRecord))

func opRecord(c *call, a wire.RecordArgs) (*wire.RecordAnswer, error) {
	l := c.l
	r := &wire.RecordAnswer{}
	switch a.Action {
	case "start", "":
		rec, err := l.startRecording(c.att.name)
		if err != nil {
			return nil, err
		}
		r.Recordings = []wire.Recording{rec.snapshot()}
	case "stop":
		l.mu.Lock()
		rec := l.rec
		l.mu.Unlock()
		if rec == nil {
			return nil, wire.Errorf(wire.NotReady, "limb %s is not being recorded", l.id)
		}
		rec.stop("stopped")
		rec.settle(stopSettle)
		r.Recordings = []wire.Recording{rec.snapshot()}
	case "list":
		list, err := l.listRecordings()
		if err != nil {
			return nil, err
		}
		r.Recordings = list
	}
	return r, nil
}

// startRecording starts recording the limb: a terminal's output as
// asciicast, a desktop's mirror as FBS, and every act beside them.
func (l *Limb) startRecording(by string) (*recorder, error) {
	l.mu.Lock()
	busy := l.rec != nil
	l.mu.Unlock()
	if busy {
		return nil, wire.Errorf(wire.Busy, "limb %s is already being recorded; stop that recording first", l.id)
	}
	var term limb.Terminal
	if l.tty != nil {
		t, err := l.terminal()
		if err != nil {
			return nil, err
		}
		term = t
	}
	dir, err := recordingsDir()
	if err != nil {
		return nil, wire.Errorf(wire.Internal, "cannot make the recordings directory: %v", err)
	}
	start := time.Now()
	base := recording.Base(dir, l.id, start)
	ext, format := ".fbs", "fbs"
	if term != nil {
		ext, format = ".cast", "asciicast-v2"
	}
	create := func(p string) (*os.File, error) { return os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600) }
	media, err := create(base + ext)
	if err != nil {
		return nil, wire.Errorf(wire.Internal, "cannot create the recording: %v", err)
	}
	actsFile, err := create(base + recording.ActsExt)
	if err != nil {
		media.Close()
		os.Remove(base + ext)
		return nil, wire.Errorf(wire.Internal, "cannot create the recording's act log: %v", err)
	}
	ctx, cancel := context.WithCancel(l.ctx)
	// abandon undoes a start that cannot go on: no half recording is left.
	abandon := func(e *wire.Error) (*recorder, error) {
		cancel()
		media.Close()
		actsFile.Close()
		os.Remove(base + ext)
		os.Remove(base + recording.ActsExt)
		return nil, e
	}
	rec := &recorder{started: start, cancel: cancel, done: make(chan struct{}), actsDone: make(chan struct{}),
		acts: make(chan actRecord, actQueue),
		info: wire.Recording{LimbID: l.id, Format: format, Path: base + ext, ActsPath: base + recording.ActsExt}}
	var run func() error
	if term != nil {
		cols, rows := term.Size()
		cast, err := recording.NewCast(media, cols, rows, start, recordCap, l.id)
		if err != nil {
			return abandon(wire.Errorf(wire.Internal, "cannot write the recording: %v", err))
		}
		rec.marker = func(at time.Time, label string) { cast.Marker(at, label) }
		rec.output = func(at time.Time, data []byte) { cast.Output(at, data) }
		run = func() error { return l.recordTerminal(ctx, cast, rec) }
	} else {
		fbs, err := recording.NewFBS(media, start, recordCap)
		if err != nil {
			return abandon(wire.Errorf(wire.Internal, "cannot write the recording: %v", err))
		}
		run = func() error {
			return recording.RecordDesktop(ctx, l.dsk.buf, fbs, recording.DesktopOptions{Name: l.id})
		}
	}
	l.mu.Lock()
	if l.rec != nil {
		l.mu.Unlock()
		return abandon(wire.Errorf(wire.Busy, "limb %s is already being recorded", l.id))
	}
	l.rec = rec
	l.mu.Unlock()
	// Two goroutines: the acts' writer, so an act never waits for the
	// disk, and the media's, which follows the limb until stopped, the
	// cap or the limb's end, and then is the one place that tidies up.
	go rec.writeActs(ctx, actsFile)
	go func() {
		err := run()
		why := "stopped"
		switch {
		case errors.Is(err, recording.ErrCapReached):
			why = "size cap reached"
		case err != nil:
			why = "error: " + err.Error()
		case l.ctx.Err() != nil:
			why = "limb closed"
		}
		rec.stop(why)
		media.Close()
		l.mu.Lock()
		if l.rec == rec {
			l.rec = nil
		}
		l.mu.Unlock()
		close(rec.done)
	}()
	l.core.log.Info("recording started", "limb", l.id, "path", rec.info.Path, "by", by)
	return rec, nil
}

// recordTerminal follows the terminal's output (across reconnects) into
// the cast; acts become markers there too.
func (l *Limb) recordTerminal(ctx context.Context, cast *recording.Cast, rec *recorder) error {
	var cur limb.Terminal
	var since uint64
	for {
		t, err := l.terminal()
		if err == nil && t != cur {
			if cur != nil {
				cast.Marker(time.Now(), "reconnected")
			}
			cur, since = t, t.End()
		}
		var changed <-chan struct{}
		if cur != nil {
			changed = cur.Changed()
			data, next, lost, err := cur.Read(since, 1<<20)
			if err == nil {
				if lost > 0 {
					cast.Marker(time.Now(), "output lost: the ring overwrote what the recorder had not read")
				}
				since = next
				if len(data) > 0 {
					if err := cast.Output(time.Now(), data); err != nil {
						return err
					}
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
		case <-time.After(time.Second): // a reconnect brings a new terminal
		}
	}
}

// noteAct queues an act (an op registered as recorded) for the limb's
// recording, if one runs. It never blocks: a full queue counts the act as
// dropped. The act is stamped with when it was sent (sent), which is where
// its effect starts on the recording's clock, and when it was answered.
func (l *Limb) noteAct(req *request, att string, outcome string, v *wire.Verification, sent time.Time) {
	l.mu.Lock()
	rec := l.rec
	l.mu.Unlock()
	if rec == nil {
		return
	}
	g := req.gist()
	a := actRecord{T: max(0, sent.Sub(rec.started).Seconds()), End: time.Since(rec.started).Seconds(), Op: req.OpName, Action: g.Action, Attachment: att,
		X: g.X, Y: g.Y, ToX: g.ToX, ToY: g.ToY, Keys: g.Keys, Outcome: outcome}
	if g.Text != nil {
		n := len([]rune(*g.Text))
		a.TextLen = &n
	}
	if v != nil {
		a.Verification = v.Status
	}
	if click, ok := req.args.(*wire.ClickArgs); ok {
		a.Direction, a.Clicks, a.Button, a.Modifiers = click.Direction, click.Clicks, click.Button, click.Modifiers
	}
	rec.queue(a)
}

// queue hands an act to the recording's writer; a full queue counts it as
// dropped rather than waiting for the disk.
func (rec *recorder) queue(a actRecord) {
	select {
	case rec.acts <- a:
	default:
		rec.mu.Lock()
		rec.dropped++
		rec.mu.Unlock()
	}
}

// recordRun writes a run's output into the limb's terminal recording, if
// one runs: a run goes over its own SSH channel, so what it printed never
// passes through the terminal the recording follows. It is written where
// the run was answered, framed by a line before and after, stdout then
// stderr, as a terminal would show it (bare newlines as CR LF). Its command
// line is not written, as the act log never holds one.
func (l *Limb) recordRun(res *wire.RunResult) {
	l.mu.Lock()
	rec := l.rec
	l.mu.Unlock()
	if rec == nil || rec.output == nil || res == nil {
		return
	}
	var b strings.Builder
	b.WriteString("\r\n\x1b[2m── dvv run ──\x1b[0m\r\n")
	for _, s := range []struct{ text, b64 string }{{res.Stdout, res.StdoutBase64}, {res.Stderr, res.StderrBase64}} {
		out := []byte(s.text)
		if s.b64 != "" {
			if raw, err := base64.StdEncoding.DecodeString(s.b64); err == nil {
				out = raw
			}
		}
		b.WriteString(crlf(out))
		if len(out) > 0 && out[len(out)-1] != '\n' {
			b.WriteString("\r\n")
		}
	}
	end := "no exit status"
	switch {
	case res.ExitCode != nil:
		end = fmt.Sprintf("exit %d", *res.ExitCode)
	case res.Signal != "":
		end = "killed by " + res.Signal
	case res.TimedOut:
		end = "ended by its deadline"
	}
	b.WriteString("\x1b[2m── dvv run: " + end + " ──\x1b[0m\r\n")
	rec.output(time.Now(), []byte(b.String()))
}

// crlf is output as a terminal in its usual mode shows it: a newline not
// after a carriage return becomes CR LF.
func crlf(b []byte) string {
	var s strings.Builder
	for i, c := range b {
		if c == '\n' && (i == 0 || b[i-1] != '\r') {
			s.WriteByte('\r')
		}
		s.WriteByte(c)
	}
	return s.String()
}

// writeActs appends each act to the act log, one line each (the file is
// what every answer counts), and marks it in the media where it can.
func (rec *recorder) writeActs(ctx context.Context, f *os.File) {
	defer close(rec.actsDone)
	defer f.Close()
	enc := json.NewEncoder(f)
	for {
		select {
		case a := <-rec.acts:
			if rec.marker != nil {
				rec.marker(rec.started.Add(time.Duration(a.T*float64(time.Second))), markerLabel(a))
			}
			enc.Encode(a)
		case <-ctx.Done():
			for { // what was queued before the end
				select {
				case a := <-rec.acts:
					enc.Encode(a)
				default:
					return
				}
			}
		}
	}
}

// markerLabel is an act in a few words, for a player's marker list.
func markerLabel(a actRecord) string {
	s := a.Op
	if a.Action != "" {
		s += " " + a.Action
	}
	if a.X != nil && a.Y != nil {
		s += fmt.Sprintf(" at %d,%d", *a.X, *a.Y)
	}
	if a.Keys != "" {
		s += " " + a.Keys
	}
	if a.TextLen != nil {
		s += fmt.Sprintf(" (%d chars)", *a.TextLen)
	}
	s += ": " + a.Outcome
	if a.Verification != "" {
		s += ", " + a.Verification
	}
	return s
}

func (rec *recorder) stop(why string) {
	rec.mu.Lock()
	if rec.ended == "" {
		rec.ended = why
	}
	rec.mu.Unlock()
	rec.cancel()
}

// settle waits, at most d, until the stopped recording's files are
// complete: the queued acts written, the media closed.
func (rec *recorder) settle(d time.Duration) {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for _, ch := range []chan struct{}{rec.actsDone, rec.done} {
		select {
		case <-ch:
		case <-deadline.C:
			return
		}
	}
}

// snapshot is what the files say (recordingOf), with what only the running
// recorder knows: whether it still runs, why it ended, the acts it dropped.
func (rec *recorder) snapshot() wire.Recording {
	r := recordingOf(rec.info.LimbID, rec.info.Path)
	rec.mu.Lock()
	r.Dropped, r.Ended = rec.dropped, rec.ended
	rec.mu.Unlock()
	r.Active = r.Ended == ""
	return r
}

// recordingOf describes a recording from its files: its start from the
// name, its size from the media, its acts from the act log's lines. Stop,
// status and list all answer from here, so they cannot disagree.
func recordingOf(limbID, media string) wire.Recording {
	format := "fbs"
	if strings.HasSuffix(media, ".cast") {
		format = "asciicast-v2"
	}
	r := wire.Recording{LimbID: limbID, Format: format, Path: media, ActsPath: recording.ActsPath(media)}
	st, err := os.Stat(media)
	if err == nil {
		r.Bytes = st.Size()
	}
	if start, ok := recording.Started(media); ok {
		r.StartedMs = start.UnixMilli()
	} else if err == nil {
		r.StartedMs = st.ModTime().UnixMilli() // a file renamed by hand
	}
	r.Acts, _ = recording.CountActs(r.ActsPath) // no act log: none kept
	return r
}

// listRecordings lists the limb's recordings on disk, newest first.
func (l *Limb) listRecordings() ([]wire.Recording, error) {
	dir, err := recordingsDir()
	if err != nil {
		return nil, wire.Errorf(wire.Internal, "cannot read the recordings directory: %v", err)
	}
	l.mu.Lock()
	active := l.rec
	l.mu.Unlock()
	var out []wire.Recording
	for _, ext := range []string{".fbs", ".cast"} {
		paths, _ := filepath.Glob(filepath.Join(dir, l.id+"-*"+ext))
		for _, p := range paths {
			if active != nil && active.info.Path == p {
				out = append(out, active.snapshot())
				continue
			}
			out = append(out, recordingOf(l.id, p))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path > out[j].Path })
	return out, nil
}

// recordWhenConnected starts the recording a saved host asks for once the
// limb is connected (a terminal has no output to follow before), unless one
// already runs; it gives up when the limb closes.
func (l *Limb) recordWhenConnected() {
	for {
		l.mu.Lock()
		state, ch, busy := l.state, l.stateCh, l.rec != nil
		l.mu.Unlock()
		if busy {
			return
		}
		if state == wire.StateConnected {
			if _, err := l.startRecording("saved host"); err != nil {
				l.core.log.Warn("cannot start the recording the saved host asks for", "limb", l.id, "error", err)
			}
			return
		}
		select {
		case <-ch:
		case <-l.ctx.Done():
			return
		}
	}
}

// RecordingsDir lets the browser viewer list and play the recordings
// (pkg/viewer, recordings page).
func (g *viewerGlue) RecordingsDir() (string, error) { return recordingsDir() }
