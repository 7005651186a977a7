package daemon

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/localfile"
	"github.com/dvvhq/dvv/pkg/wire"
)

// inlineFileMax bounds a file carried inside an answer or a request as
// contentBase64; bigger files go by local path (from/to), streamed.
const inlineFileMax = 16 << 20

// filesFor opens (once) the limb's SFTP route: the SSH connection itself
// for a terminal limb, the sidecar SSH connection for a desktop limb.
func (l *Limb) filesFor(c *opCall) (limb.Files, string, error) {
	l.filesMu.Lock()
	defer l.filesMu.Unlock()
	via := l.part.filesVia()
	if l.files != nil {
		return l.files, via, nil
	}
	f, err := l.part.openFiles(c.ctx)
	if err != nil {
		var we *wire.Error
		if errors.As(err, &we) {
			return nil, via, we
		}
		return nil, via, wire.Errorf(wire.FilesUnavailable, "%v", err)
	}
	l.files = f
	if g, ok := f.(limb.Guest); ok && l.tty == nil {
		if facts := g.Facts(); facts != nil {
			l.sidecarFacts.Store(facts)
		}
	}
	return f, via, nil
}

// dropFiles forgets a broken SFTP route so the next call dials again.
func (l *Limb) dropFiles(err error) {
	var we *wire.Error
	if errors.As(err, &we) && (we.Code == wire.FilesUnavailable || we.Code == wire.NotConnected || we.Code == wire.Unreachable) {
		l.filesMu.Lock()
		if l.files != nil {
			l.files.Close()
			l.files = nil
		}
		l.filesMu.Unlock()
	}
}

var _ = register(wire.OpFiles, typed(opFiles), listedOnDesktops, listedOnTerminals)

func opFiles(c *opCall, a wire.FilesArgs) (*wire.FilesAnswer, error) {
	f, via, err := c.l.filesFor(c)
	if err != nil {
		return nil, err
	}
	ctx := c.ctx
	if a.Action == "get" || a.Action == "put" {
		id := c.requestID()
		if a.Progress && len(id) == 0 {
			return nil, wire.Errorf(wire.BadRequest, "progress needs the request to carry an id: its progress lines are tagged with it")
		}
		t, tctx, done := startTransfer(c, a.Action, a.Path)
		defer done()
		if a.Progress && c.c != nil {
			defer t.reportProgress(c.c, id)()
		}
		ctx = tctx
	}
	res, err := doFiles(ctx, f, a)
	if err != nil {
		c.l.dropFiles(err)
		return nil, err
	}
	res.Action, res.Via = a.Action, via
	r := &wire.FilesAnswer{}
	r.Files = res
	return r, nil
}

// ctxReader and ctxWriter stop a transfer once its caller gave up (the
// connection ended, the request was cancelled): the next read or write
// fails, and the transfer ends without claiming a result.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, callerGone(err)
	}
	n, err := c.r.Read(p)
	countBytes(c.ctx, n)
	if err != nil && err != io.EOF && c.ctx.Err() != nil {
		return n, callerGone(c.ctx.Err()) // the read was woken by the cancel
	}
	return n, err
}

type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

// ExpectSize passes the size Files.Get learnt on to the transfer.
func (c ctxWriter) ExpectSize(n int64) { expectSize(c.ctx, n) }

// ExpectMode passes the remote file's permission bits on to a local file.
func (c ctxWriter) ExpectMode(perm fs.FileMode) {
	if h, ok := c.w.(limb.ModeHint); ok {
		h.ExpectMode(perm)
	}
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, callerGone(err)
	}
	n, err := c.w.Write(p)
	countBytes(c.ctx, n)
	return n, err
}

func callerGone(err error) error {
	return wire.Errorf(wire.Timeout, "the transfer stopped because its caller gave up (%v); the destination was left as it was", err)
}

// doFiles runs one files action. The spec made action, and path for every
// action but list and home, required, and bounded mode.
func doFiles(ctx context.Context, f limb.Files, req wire.FilesArgs) (*wire.FilesResult, error) {
	path := req.Path
	res := &wire.FilesResult{Path: path}
	switch req.Action {
	case "home":
		h, err := f.Home()
		res.Home, res.Path = h, h
		return res, err
	case "list":
		return filesList(f, res)
	case "stat":
		st, err := f.Stat(path)
		if err != nil {
			return nil, err
		}
		res.Stat, res.Path = st, st.Path
		return res, nil
	case "mkdir":
		return res, f.Mkdir(path)
	case "remove":
		return res, f.Remove(path, req.Recursive)
	case "rename":
		res.To = req.To // for rename, to is the new remote path
		return res, f.Rename(path, req.To)
	case "get":
		if req.Offset != nil || req.Length != nil {
			return getRange(ctx, f, req, res)
		}
		return filesGet(ctx, f, req, res)
	case "put":
		return filesPut(ctx, f, req, res)
	}
	return nil, wire.Errorf(wire.BadRequest, "unknown files action")
}

// filesList lists a directory, the home directory when none is named.
func filesList(f limb.Files, res *wire.FilesResult) (*wire.FilesResult, error) {
	if res.Path == "" {
		res.Path = "~"
	}
	entries, err := f.List(res.Path)
	res.Entries = entries
	if res.Entries == nil {
		res.Entries = []wire.FileEntry{}
	}
	return res, err
}

// filesGet fetches a remote file inline (bounded by inlineFileMax) or
// into a local file beside nothing another user planted.
func filesGet(ctx context.Context, f limb.Files, req wire.FilesArgs, res *wire.FilesResult) (*wire.FilesResult, error) {
	to := req.To // for get, to is a path on dvvd's machine (policy asked local.files)
	if to == "" {
		buf := &modeBuffer{}
		n, err := f.Get(req.Path, ctxWriter{ctx, buf}, inlineFileMax)
		if err != nil {
			return nil, err
		}
		res.Bytes, res.ContentBase64, res.Mode = n, base64.StdEncoding.EncodeToString(buf.Bytes()), buf.mode
		return res, nil
	}
	if !filepath.IsAbs(to) {
		return nil, wire.Errorf(wire.BadRequest, "to must be an absolute local path")
	}
	n, mode, err := getToFile(ctx, f, req.Path, to)
	res.Bytes, res.To, res.Mode = n, to, mode
	return res, err
}

// getRange reads a range of a remote file (offset, length), inline or to
// a local path, as get does.
func getRange(ctx context.Context, f limb.Files, req wire.FilesArgs, res *wire.FilesResult) (*wire.FilesResult, error) {
	var offset int64
	length := int64(-1)
	if req.Offset != nil {
		offset = *req.Offset
	}
	if req.Length != nil {
		length = *req.Length
	}
	res.Offset = offset
	to := req.To // a path on dvvd's machine (policy asked local.files)
	if to == "" {
		if length < 0 || length > inlineFileMax {
			// The range is bounded like a whole inline get: what comes
			// back must fit the answer.
			length = inlineFileMax + 1
		}
		buf := &modeBuffer{}
		n, err := f.GetRange(req.Path, ctxWriter{ctx, buf}, offset, length)
		if err != nil {
			return nil, err
		}
		if n > inlineFileMax {
			return nil, wire.Errorf(wire.TooLarge, "the range is over the %d bytes an answer carries; give a length, or save it to a local path with to", inlineFileMax)
		}
		res.Bytes, res.ContentBase64, res.Mode = n, base64.StdEncoding.EncodeToString(buf.Bytes()), buf.mode
		return res, nil
	}
	if !filepath.IsAbs(to) {
		return nil, wire.Errorf(wire.BadRequest, "to must be an absolute local path")
	}
	tmp := &localCopy{dir: filepath.Dir(to), base: filepath.Base(to), perm: 0o600}
	defer tmp.discard()
	n, err := f.GetRange(req.Path, ctxWriter{ctx, tmp}, offset, length)
	if err == nil {
		err = tmp.open()
	}
	if cerr := tmp.close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if err := os.Rename(tmp.name, to); err != nil {
		return nil, wire.Errorf(wire.BadRequest, "rename into %s: %v", to, err)
	}
	tmp.name = ""
	res.Bytes, res.To = n, to
	if tmp.hinted {
		res.Mode = fmt.Sprintf("%04o", tmp.perm)
	}
	return res, nil
}

// filesPut sends a local file (from) or inline content to a remote path,
// replacing it, or with append adding to its end (keeping its mode unless
// one is given).
func filesPut(ctx context.Context, f limb.Files, req wire.FilesArgs, res *wire.FilesResult) (*wire.FilesResult, error) {
	mode := uint32(0o644)
	if req.Append {
		mode = 0 // an append keeps the file's mode unless one is given
	}
	if req.Mode != nil {
		mode = uint32(*req.Mode)
	}
	put := f.Put
	if req.Append {
		put, res.Appended = f.Append, true
	}
	switch {
	case req.From != "" && req.ContentBase64 != "":
		return nil, wire.Errorf(wire.BadRequest, "put takes from or contentBase64, not both")
	case req.From != "":
		return putFromFile(ctx, put, req, res, mode)
	}
	data, err := base64.StdEncoding.DecodeString(req.ContentBase64)
	if err != nil {
		return nil, wire.Errorf(wire.BadRequest, "contentBase64 is not valid base64")
	}
	if len(data) > inlineFileMax {
		return nil, wire.Errorf(wire.TooLarge, "inline content is limited to %d bytes; use from with a local path", inlineFileMax)
	}
	expectSize(ctx, int64(len(data)))
	n, err := put(req.Path, ctxReader{ctx, bytes.NewReader(data)}, mode)
	res.Bytes = n
	return res, err
}

// putFromFile streams the local file req.From to the remote path with put
// (Put or Append).
func putFromFile(ctx context.Context, put func(string, io.Reader, uint32) (int64, error), req wire.FilesArgs, res *wire.FilesResult, mode uint32) (*wire.FilesResult, error) {
	if !filepath.IsAbs(req.From) {
		return nil, wire.Errorf(wire.BadRequest, "from must be an absolute local path")
	}
	src, err := os.Open(req.From)
	if err != nil {
		return nil, wire.Errorf(wire.NotFound, "open %s: %v", req.From, err)
	}
	defer src.Close()
	if st, err := src.Stat(); err == nil && st.Mode().IsRegular() {
		expectSize(ctx, st.Size())
	}
	// A read that blocks (a pipe, a slow device) ends when the
	// transfer is cancelled: closing the file wakes it.
	defer context.AfterFunc(ctx, func() { src.Close() })()
	n, err := put(req.Path, ctxReader{ctx, src}, mode)
	res.Bytes = n
	return res, err
}

// modeBuffer holds an inline get's bytes and the remote file's permission
// bits, which the answer carries so the client's local copy can take them.
type modeBuffer struct {
	bytes.Buffer
	mode string
}

func (b *modeBuffer) ExpectMode(perm fs.FileMode) { b.mode = fmt.Sprintf("%04o", perm&0o777) }

// getToFile streams a remote file into a local one, replacing it only when
// the whole file arrived: the bytes go to a new file beside to, renamed
// over it at the end, so a symlink or another user's file at to is
// replaced, never written through or into.
func getToFile(ctx context.Context, f limb.Files, path, to string) (n int64, mode string, err error) {
	if dev, ok, err := localfile.OpenDevice(to); err != nil {
		return 0, "", wire.Errorf(wire.BadRequest, "%v", err)
	} else if ok {
		n, err = f.Get(path, ctxWriter{ctx, dev}, -1)
		if cerr := dev.Close(); err == nil && cerr != nil {
			err = cerr
		}
		return n, "", err
	}
	tmp := &localCopy{dir: filepath.Dir(to), base: filepath.Base(to), perm: 0o600}
	defer tmp.discard()
	n, err = f.Get(path, ctxWriter{ctx, tmp}, -1)
	if err == nil {
		err = tmp.open() // an empty file is still made
	}
	if cerr := tmp.close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return n, "", err
	}
	if err := os.Rename(tmp.name, to); err != nil {
		return n, "", wire.Errorf(wire.BadRequest, "rename into %s: %v", to, err)
	}
	tmp.name = ""
	if tmp.hinted {
		mode = fmt.Sprintf("%04o", tmp.perm)
	}
	return n, mode, nil
}

// localCopy is the new file a get writes. It is created at its first byte,
// once Files.Get has said the remote file's permission bits (ModeHint):
// the file takes them, masked by the umask as any new file is (scp does
// the same); without them it is 0600. Only the rwx bits are kept, never
// setuid, setgid or sticky. Its name is new (localfile.CreateBeside):
// nothing another user planted can be waiting there.
type localCopy struct {
	dir, base string
	perm      fs.FileMode
	hinted    bool // perm is the remote file's
	name      string
	f         *os.File
}

func (l *localCopy) ExpectMode(perm fs.FileMode) {
	if l.f == nil {
		l.perm, l.hinted = perm&0o777, true
	}
}

func (l *localCopy) open() error {
	if l.f != nil {
		return nil
	}
	f, err := localfile.CreateBeside(filepath.Join(l.dir, l.base), l.perm)
	if err != nil {
		return wire.Errorf(wire.BadRequest, "cannot write beside %s: %v", filepath.Join(l.dir, l.base), err)
	}
	l.f, l.name = f, f.Name()
	return nil
}

func (l *localCopy) Write(p []byte) (int, error) {
	if err := l.open(); err != nil {
		return 0, err
	}
	return l.f.Write(p)
}

func (l *localCopy) close() error {
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	if err != nil {
		return wire.Errorf(wire.Internal, "write %s: %v", filepath.Join(l.dir, l.base), err)
	}
	return nil
}

// discard removes the file unless it was renamed into place.
func (l *localCopy) discard() {
	l.close()
	if l.name != "" {
		os.Remove(l.name)
	}
}

var _ = register(wire.OpTransfer, typed(opTransfer))

// opTransfer: files moves everything inside its own call, so there is never
// a transfer in flight. These are ordinary answers, not errors.
func opTransfer(c *opCall, a wire.TransferArgs) (*wire.TransferAnswer, error) {
	r := &wire.TransferAnswer{}
	switch a.Action {
	case "status":
		list := transfers.inFlight(c.d, c.l.id)
		r.Transfer = &wire.Transfer{Action: "status", InFlight: len(list), Transfers: list}
		r.Transfer.Note = fmt.Sprintf("%d transfer(s) in flight on this limb", len(list))
		if len(list) == 0 {
			r.Transfer.Note = "no transfer is in flight on this limb: files get and put run inside their own call"
		}
	case "cancel":
		if !transfers.cancel(c.d, c.l.id, a.TransferID) {
			return nil, wire.Errorf(wire.NotFound, "no transfer %s is in flight on limb %s (it may have finished)", a.TransferID, c.l.id)
		}
		r.Transfer = &wire.Transfer{Action: "cancel", Note: "transfer " + a.TransferID + " stopped; its files call answers that it was cancelled and the destination was left as it was"}
	}
	return r, nil
}
