package recording

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"
)

// Cast writes an asciicast v2 file: a header line, then one JSON array per
// event, [seconds, code, data], with "o" for output and "m" for markers
// (dvv writes an agent's acts as markers).
type Cast struct {
	mu    sync.Mutex
	w     *cappedWriter
	start time.Time
	err   error
}

// NewCast writes the header for a cols×rows terminal started at start.
func NewCast(w io.Writer, cols, rows int, start time.Time, capBytes int64, title string) (*Cast, error) {
	c := &Cast{w: &cappedWriter{w: w, cap: capBytes}, start: start}
	hdr := map[string]any{"version": 2, "width": cols, "height": rows, "timestamp": start.Unix(),
		"env": map[string]string{"TERM": "xterm-256color"}}
	if title != "" {
		hdr["title"] = title
	}
	b, _ := json.Marshal(hdr)
	if _, err := c.w.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	return c, nil
}

// Output records bytes the terminal printed, at time at.
func (c *Cast) Output(at time.Time, data []byte) error { return c.event(at, "o", string(data)) }

// Marker records a labelled point in time (an act, a gap).
func (c *Cast) Marker(at time.Time, label string) error { return c.event(at, "m", label) }

func (c *Cast) event(at time.Time, code, data string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	d, _ := json.Marshal(data) // invalid UTF-8 becomes U+FFFD, as players expect text
	line := fmt.Sprintf("[%.6f, %q, %s]\n", at.Sub(c.start).Seconds(), code, d)
	_, c.err = io.WriteString(c.w, line)
	return c.err
}

// Bytes is the file's size so far.
func (c *Cast) Bytes() int64 { return c.w.written() }
