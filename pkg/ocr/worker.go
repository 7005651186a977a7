package ocr

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dvvhq/dvv/pkg/ocr/pipe"
)

// EnvWorker names the environment variable that overrides where dvvocr,
// the resident recognition worker, is ("off" runs the program always).
const EnvWorker = "DVV_OCR_WORKER"

// WorkerName is the worker's program name, looked for next to dvvd and
// then on PATH.
const WorkerName = "dvvocr"

// FindWorker returns the worker's path: $DVV_OCR_WORKER, else dvvocr next
// to this executable, else on PATH; "" when there is none.
func FindWorker() string {
	if p := os.Getenv(EnvWorker); p != "" {
		if p == "off" {
			return ""
		}
		return p
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), WorkerName)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	if p, err := exec.LookPath(WorkerName); err == nil {
		return p
	}
	return ""
}

// WorkerError is a read the worker did not answer properly: it crashed,
// hung past its time or wrote something that is not a frame. The worker is
// gone when this is returned; the next read starts a new one.
type WorkerError struct {
	PID    int
	Reason string
}

func (e *WorkerError) Error() string {
	return fmt.Sprintf("ocr: the recognition worker (pid %d) %s; it was stopped and the next read starts a new one, so retry", e.PID, e.Reason)
}

// Timeouts of the worker protocol. A read the worker has not answered
// within HangAfter (or the request's own deadline and workerGrace, when
// that is sooner) is a hung worker: it is killed.
const (
	DefaultHangAfter = 60 * time.Second
	workerGrace      = 5 * time.Second
	helloTimeout     = 10 * time.Second
	// brokenFor is how long a worker that could not start (a missing
	// libtesseract) is left alone before it is tried again.
	brokenFor = time.Minute
)

// DefaultIdleAfter is how long an unused worker keeps its model loaded
// before it is stopped (the next read starts one again).
const DefaultIdleAfter = 5 * time.Minute

// pool keeps started workers of one program. Callers hold a run slot
// (acquireRun) while they use one, so there are never more workers than
// slots.
type pool struct {
	path string

	mu        sync.Mutex
	idle      []*worker
	broken    error // the worker cannot start: read with the program
	brokenAt  time.Time
	hangAfter time.Duration
	idleAfter time.Duration
	reaping   bool // the goroutine stopping idle workers runs
}

var (
	poolsMu sync.Mutex
	pools   = map[string]*pool{}
)

// poolFor returns the process-wide pool of a worker program.
func poolFor(path string) *pool {
	poolsMu.Lock()
	defer poolsMu.Unlock()
	p := pools[path]
	if p == nil {
		p = &pool{path: path, hangAfter: DefaultHangAfter, idleAfter: DefaultIdleAfter}
		pools[path] = p
	}
	return p
}

// usable reports whether reads should go to the worker (not known broken).
func (p *pool) usable() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.broken != nil && time.Since(p.brokenAt) > brokenFor {
		p.broken = nil
	}
	return p.broken == nil
}

// worker is one running dvvocr.
type worker struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	outFile *os.File // out's read end: ours to close, never Wait's
	stderr  *tailBuffer
	exited  chan struct{} // closed when the process has been waited for
	version string
	idle    time.Time // when it was last put back
}

func (w *worker) pid() int { return w.cmd.Process.Pid }

func (w *worker) alive() bool {
	select {
	case <-w.exited:
		return false
	default:
		return true
	}
}

// kill stops the worker; its exit is collected by the goroutine start made.
func (w *worker) kill() {
	w.cmd.Process.Kill()
	w.in.Close()
	<-w.exited
	w.outFile.Close()
}

// why says how the worker ended, for an error message.
func (w *worker) why() string {
	msg := strings.TrimSpace(w.stderr.String())
	state := "is gone"
	select {
	case <-w.exited:
		if st := w.cmd.ProcessState; st != nil {
			state = "ended (" + st.String() + ")"
		}
	case <-time.After(200 * time.Millisecond):
	}
	if msg != "" {
		return state + ": " + msg
	}
	return state
}

// start runs a new worker and waits for its hello.
func (p *pool) start() (*worker, error) {
	cmd := exec.Command(p.path)
	// One thread per worker: dvvd runs one worker per core instead.
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	// Its own process group, so a signal to dvvd's terminal is not its.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// Our own pipe rather than StdoutPipe: Wait closes a StdoutPipe as
	// soon as the process ends, which can lose what a worker wrote just
	// before it died (its hello, an answer) while it is still being read.
	out, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = outW
	w := &worker{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16), outFile: out, stderr: &tailBuffer{max: 4096}, exited: make(chan struct{})}
	cmd.Stderr = w.stderr
	err = cmd.Start()
	outW.Close() // the child holds its own copy; EOF comes when it exits
	if err != nil {
		out.Close()
		return nil, err
	}
	go func() { cmd.Wait(); close(w.exited) }()
	hello := make(chan error, 1)
	go func() {
		kind, v, err := pipe.ReadFrame(w.out, 4096)
		if err == nil && kind != pipe.KindHello {
			err = fmt.Errorf("a %q frame where its hello belongs", kind)
		}
		w.version = string(v)
		hello <- err
	}()
	select {
	case err = <-hello:
	case <-time.After(helloTimeout):
		err = errors.New("no hello within " + helloTimeout.String())
	}
	if err != nil {
		w.kill()
		return nil, fmt.Errorf("%s did not start: %v: %s", p.path, err, w.why())
	}
	return w, nil
}

// get takes an idle live worker or starts one.
func (p *pool) get() (*worker, error) {
	p.mu.Lock()
	for len(p.idle) > 0 {
		w := p.idle[len(p.idle)-1]
		p.idle = p.idle[:len(p.idle)-1]
		if w.alive() {
			p.mu.Unlock()
			return w, nil
		}
		w.kill() // gone on its own: reap what it holds
	}
	p.mu.Unlock()
	w, err := p.start()
	if err != nil {
		p.mu.Lock()
		p.broken, p.brokenAt = err, time.Now()
		p.mu.Unlock()
		return nil, err
	}
	return w, nil
}

func (p *pool) put(w *worker) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w.idle = time.Now()
	p.idle = append(p.idle, w)
	if !p.reaping {
		p.reaping = true
		go p.reap()
	}
}

// reap stops workers left idle for idleAfter, so a dvvd that read text
// once does not keep a model in memory for good; it ends with the last.
func (p *pool) reap() {
	for {
		p.mu.Lock()
		tick := p.idleAfter / 4
		p.mu.Unlock()
		time.Sleep(tick)
		p.mu.Lock()
		var keep, stop []*worker
		for _, w := range p.idle {
			if time.Since(w.idle) > p.idleAfter || !w.alive() {
				stop = append(stop, w)
			} else {
				keep = append(keep, w)
			}
		}
		p.idle = keep
		done := len(keep) == 0
		if done {
			p.reaping = false
		}
		p.mu.Unlock()
		for _, w := range stop {
			w.kill()
		}
		if done {
			return
		}
	}
}

// errStartFailed marks a read that never reached a worker (it could not
// start): the caller reads with the program instead.
var errStartFailed = errors.New("ocr: the recognition worker could not start")

type answer struct {
	tsv []byte
	err error
}

// recognize reads one grey picture with a worker and returns its TSV;
// psm is Tesseract's page segmentation mode.
func (p *pool) recognize(ctx context.Context, pix []byte, width, height int, lang string, psm int) ([]byte, error) {
	w, err := p.get()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errStartFailed, err)
	}
	hang := p.hangAfter
	if dl, ok := ctx.Deadline(); ok {
		hang = min(hang, time.Until(dl)+workerGrace)
	}
	q := &pipe.Request{Lang: lang, PSM: uint8(psm), DeadlineMs: uint32(max(hang-workerGrace, time.Millisecond) / time.Millisecond), Width: width, Height: height, Pix: pix}
	payload, err := q.Encode()
	if err != nil {
		p.put(w)
		return nil, err
	}
	done := make(chan answer, 1)
	go func() { done <- w.exchange(payload, lang) }()
	deadline := time.Now().Add(hang)
	timer := time.NewTimer(hang)
	defer timer.Stop()
	select {
	case a := <-done:
		if a.err != nil {
			var we *WorkerError
			if errors.As(a.err, &we) {
				w.kill()
				we.Reason += ": " + w.why()
			} else {
				p.put(w) // an ordinary answer (language missing, recognition failed)
			}
			return nil, a.err
		}
		p.put(w)
		return a.tsv, nil
	case <-ctx.Done():
		// The caller is gone; the worker finishes the read and is kept,
		// or is killed if it never does.
		go func() {
			t := time.NewTimer(time.Until(deadline))
			defer t.Stop()
			select {
			case a := <-done:
				var we *WorkerError
				if errors.As(a.err, &we) {
					w.kill()
				} else {
					p.put(w)
				}
			case <-t.C:
				w.kill()
			}
		}()
		return nil, ctx.Err()
	case <-timer.C:
		pid := w.pid()
		w.kill()
		return nil, &WorkerError{PID: pid, Reason: fmt.Sprintf("did not answer within %v", hang.Round(time.Millisecond))}
	}
}

// exchange sends one request and reads its answer. Anything but a
// well-formed answer frame is a WorkerError.
func (w *worker) exchange(payload []byte, lang string) answer {
	bad := func(format string, a ...any) answer {
		return answer{err: &WorkerError{PID: w.pid(), Reason: fmt.Sprintf(format, a...)}}
	}
	if err := pipe.WriteFrame(w.in, pipe.KindRecognize, payload); err != nil {
		return bad("could not be sent the picture (%v)", err)
	}
	kind, p, err := pipe.ReadFrame(w.out, pipe.MaxAnswer)
	if err != nil {
		if err == io.EOF {
			return bad("ended in the middle of a read")
		}
		return bad("answered garbage (%v)", err)
	}
	switch kind {
	case pipe.KindTSV:
		return answer{tsv: p}
	case pipe.KindUnavailable:
		return answer{err: langMissing(lang)}
	case pipe.KindError:
		return answer{err: fmt.Errorf("ocr: recognition failed: %s", p)}
	}
	return bad("answered a %q frame to a request", kind)
}

// tailBuffer keeps the last max bytes written (a worker's stderr, read
// for error messages, drained all its life so the worker never blocks).
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
