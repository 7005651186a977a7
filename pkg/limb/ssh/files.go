package ssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/pkg/sftp"

	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/sshx"
	"github.com/dvvhq/dvv/pkg/wire"
)

// files is limb.Files over one SFTP session. Transfers stream through
// pkg/sftp's concurrent reads and writes: memory stays at the request
// window (sshx.SFTPConcurrency packets of sshx.SFTPPacket bytes) whatever
// the file's size.
type files struct {
	conn *conn
	sc   *sftp.Client

	mu   sync.Mutex
	home string

	facts *wire.GuestFacts // a sidecar's, asked when it connected
}

// Facts are a sidecar's machine facts (nil for a terminal's files, whose
// terminal holds them).
func (f *files) Facts() *wire.GuestFacts { return f.facts }

// Run and RunWith run a command on the files' SSH connection: a desktop
// limb's sidecar runs commands too.
func (f *files) Run(ctx context.Context, command, cwd string, maxOutput int) (*wire.RunResult, error) {
	return f.RunWith(ctx, limb.RunSpec{Command: command, Cwd: cwd, MaxOutput: maxOutput})
}

func (f *files) RunWith(ctx context.Context, r limb.RunSpec) (*wire.RunResult, error) {
	res, err := f.conn.run(ctx, r)
	if res != nil && f.conn.ownsClient {
		res.Via = "sidecar"
	}
	return res, err
}

// maxListEntries bounds one listing so a huge directory cannot exhaust
// the daemon's memory.
const maxListEntries = 100000

func (f *files) err(err error, what string) error { return f.conn.opError(err, what) }

func (f *files) Home() (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.home != "" {
		return f.home, nil
	}
	// The SFTP server starts in the login directory.
	h, err := f.sc.RealPath(".")
	if err != nil {
		return "", f.err(err, "finding the remote home directory")
	}
	f.home = h
	return h, nil
}

// Resolve makes p absolute: ~ and ~/x against the remote home, relative
// paths against the home too (where the SFTP server starts).
func (f *files) Resolve(p string) (string, error) {
	if p == "" {
		return "", badRequest("a remote path is required")
	}
	if strings.ContainsRune(p, 0) {
		return "", badRequest("a remote path cannot contain a NUL byte")
	}
	if strings.HasPrefix(p, "~") && p != "~" && !strings.HasPrefix(p, "~/") {
		return "", badRequest("%q: only ~ and ~/path are understood (the remote user's home), not ~otheruser", p)
	}
	if path.IsAbs(p) {
		return path.Clean(p), nil
	}
	home, err := f.Home()
	if err != nil {
		return "", err
	}
	rest := strings.TrimPrefix(strings.TrimPrefix(p, "~"), "/")
	return path.Join(home, rest), nil
}

func (f *files) List(p string) ([]wire.FileEntry, error) {
	abs, err := f.Resolve(p)
	if err != nil {
		return nil, err
	}
	st, err := f.sc.Lstat(abs)
	if err != nil {
		return nil, f.err(err, "list "+abs)
	}
	if !st.IsDir() {
		// A symbolic link to a directory lists the directory, as ls does.
		if st.Mode()&fs.ModeSymlink != 0 {
			if t, err := f.sc.Stat(abs); err == nil && t.IsDir() {
				st = t
			}
		}
		if !st.IsDir() {
			return []wire.FileEntry{entry(path.Dir(abs), st)}, nil
		}
	}
	infos, err := f.sc.ReadDir(abs)
	if err != nil {
		return nil, f.err(err, "list "+abs)
	}
	if len(infos) > maxListEntries {
		return nil, wire.Errorf(wire.TooLarge, "%s holds %d entries, over the %d a listing returns; list a narrower directory or use run with ls/find", abs, len(infos), maxListEntries)
	}
	sort.Slice(infos, func(i, j int) bool { return infos[i].Name() < infos[j].Name() })
	out := make([]wire.FileEntry, 0, len(infos))
	for _, fi := range infos {
		out = append(out, entry(abs, fi))
	}
	return out, nil
}

func entry(dir string, fi os.FileInfo) wire.FileEntry {
	kind := "other"
	switch m := fi.Mode(); {
	case m.IsRegular():
		kind = "file"
	case m.IsDir():
		kind = "dir"
	case m&fs.ModeSymlink != 0:
		kind = "link"
	}
	return wire.FileEntry{Name: fi.Name(), Path: path.Join(dir, fi.Name()), Kind: kind, Size: fi.Size(),
		Mode: fmt.Sprintf("%04o", unixMode(fi.Mode())), ModTime: fi.ModTime().Unix()}
}

// unixMode gives the permission bits with setuid, setgid and sticky in
// their Unix places.
func unixMode(m fs.FileMode) uint32 {
	u := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		u |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		u |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		u |= 0o1000
	}
	return u
}

// Get streams the remote file into w. With max > 0 a file larger than max
// is refused before anything is written (TOO_LARGE), and one that grows
// past max while being read stops there with TOO_LARGE.
func (f *files) Get(p string, w io.Writer, max int64) (int64, error) {
	abs, err := f.Resolve(p)
	if err != nil {
		return 0, err
	}
	st, err := f.sc.Stat(abs)
	if err != nil {
		return 0, f.err(err, "get "+abs)
	}
	if st.IsDir() {
		return 0, badRequest("%s is a directory; get copies one file (list it to see its files)", abs)
	}
	if max > 0 && st.Size() > max {
		return 0, wire.Errorf(wire.TooLarge, "%s is %d bytes, over the %d this get may return; save it to a local path instead", abs, st.Size(), max)
	}
	src, err := f.sc.Open(abs)
	if err != nil {
		return 0, f.err(err, "get "+abs)
	}
	defer src.Close()
	if h, ok := w.(limb.SizeHint); ok && st.Mode().IsRegular() {
		h.ExpectSize(st.Size())
	}
	if h, ok := w.(limb.ModeHint); ok && st.Mode().IsRegular() {
		h.ExpectMode(st.Mode().Perm())
	}
	if max > 0 {
		w = &limitWriter{w: w, left: max}
	}
	n, err := src.WriteTo(w)
	if errors.Is(err, errTooLarge) {
		return n, wire.Errorf(wire.TooLarge, "%s grew past %d bytes while being read; save it to a local path instead", abs, max)
	}
	var we *wire.Error
	if errors.As(err, &we) { // the writer's own reason (its caller gave up)
		return n, we
	}
	if err != nil {
		return n, f.err(err, "get "+abs)
	}
	return n, nil
}

var errTooLarge = errors.New("over the size limit")

// Stat describes p as stat(1) does: lstat, so a final symbolic link is
// the link itself (its target named), with the owner's numeric ids.
func (f *files) Stat(p string) (*wire.FileStat, error) {
	abs, err := f.Resolve(p)
	if err != nil {
		return nil, err
	}
	st, err := f.sc.Lstat(abs)
	if err != nil {
		return nil, f.err(err, "stat "+abs)
	}
	e := entry(path.Dir(abs), st)
	out := &wire.FileStat{Path: abs, Kind: e.Kind, Size: e.Size, Mode: e.Mode, ModTime: e.ModTime, UID: -1, GID: -1}
	if sys, ok := st.Sys().(*sftp.FileStat); ok {
		out.UID, out.GID = int(sys.UID), int(sys.GID)
	}
	if e.Kind == "link" {
		if t, err := f.sc.ReadLink(abs); err == nil {
			out.Target = t
		}
	}
	return out, nil
}

// GetRange streams length bytes of the file from offset (length < 0: to
// its end). An offset past the end is refused, naming the size; a range
// reaching past the end gives the bytes there are.
func (f *files) GetRange(p string, w io.Writer, offset, length int64) (int64, error) {
	abs, err := f.Resolve(p)
	if err != nil {
		return 0, err
	}
	if offset < 0 {
		return 0, badRequest("offset %d is negative", offset)
	}
	st, err := f.sc.Stat(abs)
	if err != nil {
		return 0, f.err(err, "get "+abs)
	}
	if st.IsDir() {
		return 0, badRequest("%s is a directory; get reads one file (list it to see its files)", abs)
	}
	if st.Mode().IsRegular() && offset > st.Size() {
		return 0, badRequest("offset %d is past the end of %s, which is %d bytes", offset, abs, st.Size())
	}
	src, err := f.sc.Open(abs)
	if err != nil {
		return 0, f.err(err, "get "+abs)
	}
	defer src.Close()
	if _, err := src.Seek(offset, io.SeekStart); err != nil {
		return 0, f.err(err, "get "+abs)
	}
	if h, ok := w.(limb.ModeHint); ok && st.Mode().IsRegular() {
		h.ExpectMode(st.Mode().Perm())
	}
	var r io.Reader = src
	if length >= 0 {
		r = io.LimitReader(src, length)
	}
	if h, ok := w.(limb.SizeHint); ok && st.Mode().IsRegular() {
		n := st.Size() - offset
		if length >= 0 && length < n {
			n = length
		}
		h.ExpectSize(n)
	}
	n, err := io.CopyBuffer(w, r, make([]byte, sshx.SFTPPacket))
	var we *wire.Error
	if errors.As(err, &we) { // the writer's own reason (its caller gave up)
		return n, we
	}
	if err != nil {
		return n, f.err(err, "get "+abs)
	}
	return n, nil
}

// Append adds r's bytes to the end of p (created when missing). The
// writes go one packet at a time, each acknowledged before the next: with
// the file opened for appending the server puts every write at the end
// whatever its offset, so concurrent packets could land out of order. A
// mode (0..07777) is applied after writing; 0 leaves the mode as it is.
// An append that stops half-way leaves what arrived: unlike put, there is
// no temporary file to rename.
func (f *files) Append(p string, r io.Reader, mode uint32) (int64, error) {
	abs, err := f.writeTarget(p, mode)
	if err != nil {
		return 0, err
	}
	dst, err := f.sc.OpenFile(abs, os.O_WRONLY|os.O_CREATE|os.O_APPEND)
	if err != nil {
		return 0, f.err(err, "append to "+abs)
	}
	var n int64
	buf := make([]byte, sshx.SFTPPacket)
	for {
		k, rerr := io.ReadFull(r, buf)
		if k > 0 {
			w, werr := dst.Write(buf[:k])
			n += int64(w)
			if werr != nil {
				dst.Close()
				return n, f.err(werr, fmt.Sprintf("append to %s (stopped after %d bytes, which stay appended)", abs, n))
			}
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			dst.Close()
			var we *wire.Error
			if errors.As(rerr, &we) {
				return n, we
			}
			return n, f.err(rerr, fmt.Sprintf("append to %s (stopped after %d bytes, which stay appended)", abs, n))
		}
	}
	if err := dst.Close(); err != nil {
		return n, f.err(err, "append to "+abs)
	}
	if mode != 0 {
		if err := f.sc.Chmod(abs, fs.FileMode(mode&0o777)|modeBits(mode)); err != nil {
			return n, f.err(err, "setting the mode of "+abs)
		}
	}
	return n, nil
}

type limitWriter struct {
	w    io.Writer
	left int64
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > l.left {
		return 0, errTooLarge
	}
	n, err := l.w.Write(p)
	l.left -= int64(n)
	return n, err
}

// writeTarget checks a put's or an append's mode and resolves its path,
// refusing a directory.
func (f *files) writeTarget(p string, mode uint32) (string, error) {
	if mode > 0o7777 {
		return "", badRequest("mode %o has bits beyond 07777; give permission bits only, e.g. 420 (0644)", mode)
	}
	abs, err := f.Resolve(p)
	if err != nil {
		return "", err
	}
	if st, err := f.sc.Stat(abs); err == nil && st.IsDir() {
		return "", badRequest("%s is a directory; put needs a file path (e.g. %s/name)", abs, abs)
	}
	return abs, nil
}

// Put streams r into the remote file, creating or truncating it. A mode
// (permission bits, 0..07777) is applied explicitly, so the remote umask
// does not change it; mode 0 keeps an existing file's mode and gives a new
// file the server's default.
func (f *files) Put(p string, r io.Reader, mode uint32) (int64, error) {
	abs, err := f.writeTarget(p, mode)
	if err != nil {
		return 0, err
	}
	// The data goes to a temporary name beside the target, renamed over it
	// only once complete: a transfer that stops half-way (its caller gave
	// up, the link dropped) never leaves a complete-looking file.
	tmp := path.Join(path.Dir(abs), fmt.Sprintf(".%s.dvv-part-%d", path.Base(abs), rand.Uint32()))
	dst, err := f.sc.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return 0, f.err(err, "put "+abs)
	}
	n, err := dst.ReadFromWithConcurrency(r, sshx.SFTPConcurrency)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err == nil && mode != 0 {
		if cerr := f.sc.Chmod(tmp, fs.FileMode(mode&0o777)|modeBits(mode)); cerr != nil {
			f.sc.Remove(tmp)
			return n, f.err(cerr, "setting the mode of "+abs)
		}
	}
	if err == nil {
		if _, ok := f.sc.HasExtension("posix-rename@openssh.com"); ok {
			err = f.sc.PosixRename(tmp, abs)
		} else {
			f.sc.Remove(abs)
			err = f.sc.Rename(tmp, abs)
		}
	}
	if err != nil {
		f.sc.Remove(tmp)
		var we *wire.Error
		if errors.As(err, &we) {
			return n, we
		}
		return n, f.err(err, fmt.Sprintf("put %s (stopped after %d bytes; %s was left as it was)", abs, n, abs))
	}
	return n, nil
}

func modeBits(m uint32) fs.FileMode {
	var out fs.FileMode
	if m&0o4000 != 0 {
		out |= fs.ModeSetuid
	}
	if m&0o2000 != 0 {
		out |= fs.ModeSetgid
	}
	if m&0o1000 != 0 {
		out |= fs.ModeSticky
	}
	return out
}

// Mkdir creates a directory and any missing parents; an existing
// directory is success.
func (f *files) Mkdir(p string) error {
	abs, err := f.Resolve(p)
	if err != nil {
		return err
	}
	if st, err := f.sc.Stat(abs); err == nil {
		if st.IsDir() {
			return nil
		}
		return badRequest("%s exists and is not a directory", abs)
	}
	return f.err(f.sc.MkdirAll(abs), "mkdir "+abs)
}

// Remove deletes a file, link or empty directory; a non-empty directory
// only with recursive.
func (f *files) Remove(p string, recursive bool) error {
	abs, err := f.Resolve(p)
	if err != nil {
		return err
	}
	if abs == "/" {
		return badRequest("refusing to remove /")
	}
	st, err := f.sc.Lstat(abs)
	if err != nil {
		return f.err(err, "remove "+abs)
	}
	if !st.IsDir() {
		return f.err(f.sc.Remove(abs), "remove "+abs)
	}
	if recursive {
		return f.err(f.sc.RemoveAll(abs), "remove "+abs)
	}
	entries, err := f.sc.ReadDir(abs)
	if err != nil {
		return f.err(err, "remove "+abs)
	}
	if len(entries) > 0 {
		return badRequest("%s is a directory that is not empty (%d entries); nothing was removed. Pass recursive: true to remove it with everything in it", abs, len(entries))
	}
	return f.err(f.sc.RemoveDirectory(abs), "remove "+abs)
}

// Rename moves from to to, replacing to when the server supports POSIX
// rename (OpenSSH does).
func (f *files) Rename(from, to string) error {
	a, err := f.Resolve(from)
	if err != nil {
		return err
	}
	b, err := f.Resolve(to)
	if err != nil {
		return err
	}
	if _, ok := f.sc.HasExtension("posix-rename@openssh.com"); ok {
		return f.err(f.sc.PosixRename(a, b), "rename "+a)
	}
	return f.err(f.sc.Rename(a, b), "rename "+a)
}

// Close ends a sidecar's connection; a terminal's SFTP session lives as
// long as the terminal.
func (f *files) Close() error {
	if f.conn.ownsClient {
		return f.conn.close()
	}
	return nil
}
