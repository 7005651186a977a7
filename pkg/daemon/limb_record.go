package daemon

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/recording"
	"github.com/dvvhq/dvv/pkg/wire"
)

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
		t, err := l.liveTerminal()
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
		t, err := l.liveTerminal()
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
