package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

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
