package recording

import (
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
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/localfile"
	"github.com/dvvhq/dvv/pkg/rfb"
)

// ErrNoFFmpeg is returned by Export when ffmpeg is not installed.
var ErrNoFFmpeg = errors.New("recording: ffmpeg is not installed (apt install ffmpeg, brew install ffmpeg); an FBS file plays without it in noVNC's player, a .cast file with asciinema play")

// ExportOptions say how a recording becomes a video.
type ExportOptions struct {
	FPS int // frames a second (default 10)
	// Acts draws the act log's acts into the frames they happened on: a
	// ring at the point of a pointer act, a label for keys and typed text
	// (its length only), refused acts in red.
	Acts bool
}

// Export renders a recording to an H.264 MP4 through ffmpeg: a desktop's
// FBS file through dvv's RFB client, a terminal's asciicast through the
// terminal emulator dvv reads screens with (pkg/vtscreen) and a built-in
// font. Frame k shows the recording at k/FPS seconds.
func Export(ctx context.Context, path, out string, o ExportOptions) error {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		return ErrNoFFmpeg
	}
	if o.FPS <= 0 {
		o.FPS = 10
	}
	var acts []Act
	if o.Acts {
		var err error
		if acts, err = ReadActs(ActsPath(path)); err != nil {
			return err
		}
	}
	switch filepath.Ext(path) {
	case ".fbs":
		return exportDesktop(ctx, path, out, o.FPS, acts)
	case ".cast":
		return exportTerminal(ctx, path, out, o.FPS, acts)
	}
	return fmt.Errorf("%s is not a recording dvv made (.fbs for a desktop, .cast for a terminal)", path)
}

func exportDesktop(ctx context.Context, path, out string, fps int, acts []Act) error {
	pl, err := OpenPlayer(ctx, path)
	if err != nil {
		return err
	}
	defer pl.Close()
	tl := newTimeline(append(append([]uint32(nil), pl.times...), actTimes(acts)...))
	end := tl.videoAt(pl.DurationMs())
	if err := tl.check(end, fps); err != nil {
		return err
	}
	acts = tl.onVideoClock(acts)
	first, err := pl.Frame(0)
	if err != nil {
		return err
	}
	// The video keeps the first frame's size, shown at most maxVideoPixels
	// large: a bigger desktop is shown at half size, or a third…, so that
	// neither these frames nor ffmpeg's grow with what a file claims.
	shrink := 1
	for (first.Rect.Dx()/shrink)*(first.Rect.Dy()/shrink) > maxVideoPixels {
		shrink++
	}
	w, h := max(1, first.Rect.Dx()/shrink), max(1, first.Rect.Dy()/shrink)
	frame := image.NewRGBA(image.Rect(0, 0, w, h)) // one for every frame
	enc, err := startEncoder(ctx, w, h, fps, out)
	if err != nil {
		return err
	}
	var werr error
	for k := int64(0); werr == nil; k++ {
		v := uint32(k * 1000 / int64(fps))
		img, err := pl.Frame(tl.recAt(v))
		if err != nil {
			werr = err
			break
		}
		// A resized desktop is drawn into the video's size from the top
		// left.
		drawActs(img, actsAt(acts, float64(v)/1000), false)
		fitInto(frame, img, shrink)
		werr = enc.frame(frame)
		if v >= end {
			break
		}
	}
	return enc.finish(werr)
}

// maxVideoPixels bounds a video's frame: 3840x2160 (4K UHD).
const maxVideoPixels = 3840 * 2160

// fitInto draws src into dst from the top left, every shrink-th pixel of
// it each way; what src does not cover is black.
func fitInto(dst, src *image.RGBA, shrink int) {
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	for y := 0; y < h; y++ {
		row := dst.Pix[y*dst.Stride : y*dst.Stride+4*w]
		sy := y * shrink
		if sy >= sh {
			clear(row)
			continue
		}
		srow := src.Pix[sy*src.Stride:]
		if shrink == 1 {
			n := copy(row, srow[:4*min(w, sw)])
			clear(row[n:])
			continue
		}
		for x := 0; x < w; x++ {
			if sx := x * shrink; sx < sw {
				copy(row[4*x:4*x+4], srow[4*sx:4*sx+4])
			} else {
				clear(row[4*x:])
				break
			}
		}
	}
}

// encoder is ffmpeg reading raw RGBA frames on its stdin. It writes a
// temporary file beside the video's path, which finish renames into place.
type encoder struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr bytes.Buffer
	tmp    string // the file ffmpeg writes
	out    string // where the finished video goes
}

func startEncoder(ctx context.Context, w, h, fps int, out string) (*encoder, error) {
	// ffmpeg never opens out itself: out may be a symlink or a file
	// another user planted in a shared directory such as /tmp, and
	// opening it would write through the link or into their file. The
	// video is made in a new 0600 file of this user's beside out (the
	// recording is 0600 too, whatever the umask), created exclusively so
	// nothing can be waiting at its name, and renamed over out once
	// complete: a rename replaces the directory entry, never what a link
	// points to, and a failed export leaves out as it was.
	f, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("cannot write beside %s: %v", out, err)
	}
	e := &encoder{tmp: f.Name(), out: out}
	f.Close()
	e.cmd = exec.CommandContext(ctx, "ffmpeg", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgba",
		"-s", fmt.Sprintf("%dx%d", w, h), "-r", strconv.Itoa(fps), "-i", "-",
		"-c:v", "libx264", "-pix_fmt", "yuv420p", "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-f", "mp4", e.tmp)
	if e.stdin, err = e.cmd.StdinPipe(); err != nil {
		os.Remove(e.tmp)
		return nil, err
	}
	e.cmd.Stderr = &e.stderr
	if err := e.cmd.Start(); err != nil {
		os.Remove(e.tmp)
		return nil, err
	}
	return e, nil
}

func (e *encoder) frame(img *image.RGBA) error {
	_, err := e.stdin.Write(img.Pix)
	return err
}

// finish closes ffmpeg's input, waits for the file and renames it into
// place; werr, the frames' error, wins over ffmpeg's. Whatever fails, the
// temporary file goes and out is left as it was.
func (e *encoder) finish(werr error) error {
	e.stdin.Close()
	err := e.cmd.Wait()
	switch {
	case werr != nil:
		err = werr
	case err != nil:
		err = fmt.Errorf("ffmpeg: %v: %s", err, bytes.TrimSpace(e.stderr.Bytes()))
	default:
		err = placeFile(e.tmp, e.out)
	}
	if err != nil {
		os.Remove(e.tmp)
	}
	return err
}

// placeFile renames the finished tmp over out. In a shared sticky
// directory (/tmp) a name another user owns cannot be replaced, and it is
// not written into either: the error says to choose another path.
func placeFile(tmp, out string) error {
	err := os.Rename(tmp, out)
	if err == nil {
		return nil
	}
	if errors.Is(err, os.ErrPermission) {
		owner := ""
		if st, serr := os.Lstat(out); serr == nil {
			if uid, ok := localfile.Owner(st); ok && uid != os.Geteuid() {
				owner = fmt.Sprintf(" (it belongs to uid %d)", uid)
			}
		}
		return fmt.Errorf("%w: %s exists and cannot be replaced by this user%s; it was not written into: choose an --out path in a directory only you can write (e.g. under your home)", ErrOutNotPlaced, out, owner)
	}
	return fmt.Errorf("%w: rename into %s: %v", ErrOutNotPlaced, out, err)
}

// ErrOutNotPlaced is wrapped by Export's error when the finished video
// could not be put at its path.
var ErrOutNotPlaced = errors.New("recording: the video was not placed")

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
	stop   chan struct{}
	// storm is set when the recording's resizes went past
	// maxResizePixels and the feed was cut.
	storm atomic.Bool
}

// maxResizePixels bounds the framebuffers a recording's screen-size
// changes may make the player allocate and clear, summed: 2^28 pixels
// (1 GiB) is over 120 changes of a 1920x1080 desktop, and 8 of the
// largest one (8192x4096). A file past it (a resize storm) is refused
// rather than played: each change reallocates and clears the frame, so a
// few kilobytes of DesktopSize messages would otherwise cost minutes and
// gigabytes.
const maxResizePixels = 1 << 28

// errResizeStorm is the player's error for a recording past
// maxResizePixels.
var errResizeStorm = fmt.Errorf("the recording changes its screen size more often than a player follows (framebuffers of %d pixels in all): not a recording dvv plays", maxResizePixels)

// watchResizes charges each change of the frame's size to the budget
// (the larger of the sizes before and after it, since changes between two
// looks are seen only as a count) and cuts the feed once it is spent.
func (p *player) watchResizes() {
	seen := p.buf.Resizes()
	w, h := p.buf.Size()
	last, spent := w*h, 0
	for {
		changed := p.buf.Changed()
		if n := p.buf.Resizes(); n != seen {
			w, h := p.buf.Size()
			spent += int(n-seen) * max(w*h, last)
			seen, last = n, w*h
			if spent > maxResizePixels {
				p.storm.Store(true)
				p.srv.Close() // the client reads no further; the feed fails
				return
			}
		}
		select {
		case <-changed:
		case <-p.stop:
			return
		}
	}
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
	p := &player{srv: srv, buf: fb.New(), hs: hs, stop: make(chan struct{})}
	handshake := make(chan error, 1)
	go func() {
		c, err := rfb.NewClient(ctx, cli, &rfb.Config{Framebuffer: p.buf, NoContinuousUpdates: true})
		if err != nil {
			// A handshake refused before the client read all of it would
			// leave the write below waiting for a reader for ever.
			cli.Close()
		}
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
	go p.watchResizes()
	go p.client.Run()
	return p, nil
}

func (p *player) close() {
	close(p.stop)
	p.client.Close()
	p.srv.Close()
}
