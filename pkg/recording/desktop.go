package recording

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/rfbserver"
)

// DesktopOptions tune a desktop recording.
type DesktopOptions struct {
	Name string // the desktop name in the recording's ServerInit
	// Pace is the shortest time between two frames (default 100 ms: ten
	// frames a second at most). Changes within it coalesce into one frame,
	// so an idle screen costs nothing and a busy one a bounded amount.
	Pace time.Duration
}

// RecordDesktop records buf into f until ctx ends or writing fails (a full
// disk, the size cap): an in-process RFB viewer asks the re-share's
// encoder for updates, at most one per Pace, and every byte the encoder
// sends is written as an FBS block stamped with its arrival. It returns
// why it stopped (nil when ctx ended).
func RecordDesktop(ctx context.Context, buf *fb.Buffer, f *FBS, o DesktopOptions) error {
	if o.Pace <= 0 {
		o.Pace = 100 * time.Millisecond
	}
	srv, cli := net.Pipe()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	served := make(chan error, 1)
	go func() {
		served <- rfbserver.Serve(ctx, srv, rfbserver.Config{Buffer: buf, Name: o.Name, ViewOnly: true})
	}()
	stop := context.AfterFunc(ctx, func() { cli.Close() })
	defer stop()
	defer cli.Close()
	w, h, err := viewerHandshake(cli, f)
	if err != nil {
		return ignoreDone(ctx, err)
	}
	// A player's client asks for its own pixel format, and the stream it
	// replays cannot change: record in the one noVNC (and dvv's own client)
	// asks for, 32 bits, red in the lowest byte.
	msg := []byte{0, 0, 0, 0, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 0, 8, 16, 0, 0, 0}
	// Then every update the player will need: ZRLE (the encoder's
	// compressed form), CopyRect, Raw, DesktopSize and Cursor.
	encs := []int32{16, 1, 0, -223, -239}
	msg = append(msg, 2, 0, 0, byte(len(encs)))
	for _, e := range encs {
		msg = binary.BigEndian.AppendUint32(msg, uint32(e))
	}
	msg = append(msg, updateRequest(false, w, h)...)
	if _, err := cli.Write(msg); err != nil {
		return ignoreDone(ctx, err)
	}
	go func() { // pacing: one incremental request per Pace
		t := time.NewTicker(o.Pace)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if _, err := cli.Write(updateRequest(true, w, h)); err != nil {
					return
				}
			}
		}
	}()
	b := make([]byte, 256<<10)
	for {
		n, err := cli.Read(b)
		if n > 0 {
			if werr := f.Block(time.Now(), b[:n]); werr != nil {
				return werr
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			select {
			case serr := <-served:
				if serr != nil && !errors.Is(serr, io.EOF) {
					return serr
				}
			default:
			}
			return err
		}
	}
}

// viewerHandshake plays the viewer's side of RFB 3.8 with security None,
// recording what the server says (players replay it).
func viewerHandshake(c net.Conn, f *FBS) (w, h int, err error) {
	read := func(n int) ([]byte, error) {
		b := make([]byte, n)
		if _, err := io.ReadFull(c, b); err != nil {
			return nil, err
		}
		return b, f.Block(time.Now(), b)
	}
	if _, err = read(12); err != nil {
		return
	}
	if _, err = c.Write([]byte("RFB 003.008\n")); err != nil {
		return
	}
	n, err := read(1)
	if err != nil {
		return
	}
	if _, err = read(int(n[0])); err != nil {
		return
	}
	if _, err = c.Write([]byte{1}); err != nil { // None
		return
	}
	res, err := read(4)
	if err != nil {
		return
	}
	if binary.BigEndian.Uint32(res) != 0 {
		return 0, 0, fmt.Errorf("recording: the encoder refused the recorder")
	}
	if _, err = c.Write([]byte{1}); err != nil { // ClientInit, shared
		return
	}
	init, err := read(24)
	if err != nil {
		return
	}
	if _, err = read(int(binary.BigEndian.Uint32(init[20:]))); err != nil {
		return
	}
	return int(binary.BigEndian.Uint16(init[0:])), int(binary.BigEndian.Uint16(init[2:])), nil
}

func updateRequest(incremental bool, w, h int) []byte {
	inc := byte(0)
	if incremental {
		inc = 1
	}
	b := []byte{3, inc, 0, 0, 0, 0}
	b = binary.BigEndian.AppendUint16(b, uint16(w))
	return binary.BigEndian.AppendUint16(b, uint16(h))
}

func ignoreDone(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}
