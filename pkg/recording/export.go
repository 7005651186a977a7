package recording

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/rfb"
)

// ErrNoFFmpeg is returned by ExportMP4 when ffmpeg is not installed.
var ErrNoFFmpeg = errors.New("recording: ffmpeg is not installed (apt install ffmpeg, brew install ffmpeg); an FBS file plays without it in noVNC's player")

// ExportMP4 renders an FBS desktop recording to an H.264 MP4 at fps frames
// a second: the recording's bytes are played into dvv's RFB client, and its
// framebuffer is sampled on the recording's own clock (a frame shows what
// the screen was at that instant) and piped to ffmpeg.
func ExportMP4(ctx context.Context, fbsPath, out string, fps int) error {
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		return ErrNoFFmpeg
	}
	if fps <= 0 {
		fps = 10
	}
	f, err := os.Open(fbsPath)
	if err != nil {
		return err
	}
	defer f.Close()
	type block struct {
		ms   uint32
		data []byte
	}
	var blocks []block
	if err := ReadFBS(bufio.NewReader(f), func(ms uint32, b []byte) error {
		blocks = append(blocks, block{ms, bytes.Clone(b)})
		return nil
	}); err != nil {
		return fmt.Errorf("reading %s: %w", fbsPath, err)
	}
	var stream []byte
	for _, b := range blocks {
		stream = append(stream, b.data...)
	}
	p, err := startPlayer(ctx, stream)
	if err != nil {
		return err
	}
	defer p.close()
	srv, buf, hs := p.srv, p.buf, p.hs
	w, h := buf.Size()
	if w == 0 || h == 0 {
		return fmt.Errorf("the recording holds no frame")
	}
	cmd := exec.CommandContext(ctx, ffmpeg, "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgba",
		"-s", fmt.Sprintf("%dx%d", w, h), "-r", strconv.Itoa(fps), "-i", "-",
		"-c:v", "libx264", "-pix_fmt", "yuv420p", "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", out)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	step := uint32(1000 / fps)
	next := uint32(0)
	frame := func() error {
		img, _ := buf.Snapshot(image.Rect(0, 0, w, h))
		_, err := stdin.Write(img.Pix)
		return err
	}
	var werr error
	off := 0
	for _, b := range blocks {
		from, to := max(off, hs), off+len(b.data)
		off = to
		if from >= to {
			continue // part of the handshake
		}
		// Writing returns once the client took the bytes, which it does
		// only after decoding everything before them: frames up to this
		// block's time show the state before it.
		for next < b.ms && werr == nil {
			werr = frame()
			next += step
		}
		if werr != nil {
			break
		}
		if _, err := srv.Write(stream[from:to]); err != nil {
			werr = err
		}
	}
	settle(buf)
	if werr == nil {
		werr = frame()
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("ffmpeg: %v: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return werr
}

// handshakeLen is how many bytes of a recorded 3.7/3.8 stream are the
// handshake: version, security types, result, ServerInit with its name.
func handshakeLen(s []byte) (int, error) {
	bad := fmt.Errorf("recording: the stream does not start with an RFB 3.7/3.8 handshake dvv can replay")
	if len(s) < 13 || string(s[:4]) != "RFB " {
		return 0, bad
	}
	n := 12 + 1 + int(s[12]) + 4
	if len(s) < n+24 {
		return 0, bad
	}
	name := int(binary.BigEndian.Uint32(s[n+20:]))
	if n += 24 + name; len(s) < n {
		return 0, bad
	}
	return n, nil
}

// settle waits until the last block's decode stopped changing the frame.
func settle(buf *fb.Buffer) {
	last := buf.Seq()
	for i := 0; i < 20; i++ {
		time.Sleep(50 * time.Millisecond)
		if s := buf.Seq(); s == last {
			return
		} else {
			last = s
		}
	}
}

// player is dvv's RFB client reading a recorded stream through a pipe:
// the recording's handshake is done, its updates are written to srv.
type player struct {
	srv    net.Conn
	buf    *fb.Buffer
	client *rfb.Client
	hs     int // bytes of the stream the handshake took
}

// startPlayer plays a recorded stream's handshake into a new client (what
// the client says goes nowhere) and starts it reading updates.
func startPlayer(ctx context.Context, stream []byte) (*player, error) {
	hs, err := handshakeLen(stream)
	if err != nil {
		return nil, err
	}
	srv, cli := net.Pipe()
	go io.Copy(io.Discard, srv)
	p := &player{srv: srv, buf: fb.New(), hs: hs}
	handshake := make(chan error, 1)
	go func() {
		c, err := rfb.NewClient(ctx, cli, &rfb.Config{Framebuffer: p.buf, NoContinuousUpdates: true})
		p.client = c
		handshake <- err
	}()
	if _, err := srv.Write(stream[:hs]); err != nil {
		srv.Close()
		return nil, err
	}
	if err := <-handshake; err != nil {
		srv.Close()
		return nil, fmt.Errorf("the recording's handshake: %w", err)
	}
	go p.client.Run()
	return p, nil
}

func (p *player) close() {
	p.client.Close()
	p.srv.Close()
}

// LastFrame plays an FBS recording into dvv's RFB client and returns the
// frame it ends on (what a player shows at the end).
func LastFrame(ctx context.Context, r io.Reader) (*fb.Buffer, error) {
	var stream []byte
	if err := ReadFBS(bufio.NewReader(r), func(_ uint32, b []byte) error { stream = append(stream, b...); return nil }); err != nil {
		return nil, err
	}
	p, err := startPlayer(ctx, stream)
	if err != nil {
		return nil, err
	}
	defer p.close()
	if _, err := p.srv.Write(stream[p.hs:]); err != nil {
		return nil, err
	}
	settle(p.buf)
	return p.buf, nil
}
