package client

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/dvvhq/dvv/pkg/localfile"
	"github.com/dvvhq/dvv/pkg/wire"
)

// InlineMax bounds the bytes of a local file that travel inside a request
// (files put): a bigger regular file is named for dvvd to stream.
const InlineMax = 16 << 20

// mover moves a local file's bytes through this process for one request
// (Options.InlineFiles): the request carries them inline and the client
// reads or writes the local file itself. A dvvd sandboxed by its service
// unit (no write access to the caller's tree), one reached over ssh:// on
// another machine, and a token without local.files all work the same way.
// Only bytes over dvvd's inline limits make the request name the path
// instead, for a dvvd on this machine to stream (see docs/security.md).
type mover struct {
	strip  func() (wire.Args, error)              // the request carrying the data inline instead of naming the path
	finish func(*wire.Reply) (wire.Answer, error) // write what came back inline to the path: the answer naming it
	// consumed is set by a strip that read data it cannot read again (a
	// pipe): naming the path then would send only what is left.
	consumed bool
}

// mover is the request's local-file mover, or nil when it names no local
// file or the client does not move them.
func (c *Client) mover(a wire.Args) *mover {
	if !c.inline {
		return nil
	}
	switch v := a.(type) {
	case wire.FilesArgs:
		return filesMover(v)
	case *wire.FilesArgs:
		return filesMover(*v)
	case wire.ScreenArgs:
		return screenMover(v)
	case *wire.ScreenArgs:
		return screenMover(*v)
	case wire.GroupRunArgs:
		return groupScreenMover(v)
	case *wire.GroupRunArgs:
		return groupScreenMover(*v)
	}
	return nil
}

// moveLocal sends a with its local bytes inline, and a naming the path
// when they are over dvvd's inline limits and dvvd is on this machine.
func (c *Client) moveLocal(ctx context.Context, a wire.Args, mv *mover) (*wire.Reply, error) {
	inline, err := mv.strip()
	var r *wire.Reply
	if err == nil {
		r, err = c.send(ctx, inline)
		if err == nil {
			if r, err = rewrite(r, mv.finish); err != nil {
				return nil, err
			}
		}
	}
	if IsCode(err, wire.TooLarge) && !c.remote && !mv.consumed {
		return c.send(ctx, a)
	}
	return r, err
}

// rewrite has finish write the local file from a success and answers the
// line dvvd would have written had it written the file itself.
func rewrite(r *wire.Reply, finish func(*wire.Reply) (wire.Answer, error)) (*wire.Reply, error) {
	ans, err := finish(r)
	if err != nil || ans == nil {
		return r, err
	}
	line, err := wire.AnswerLine(r.ID, ans)
	if err != nil {
		return nil, wire.Errorf(wire.Internal, "the answer could not be encoded: %v", err)
	}
	return wire.ReadReply(line)
}

// decodeLocal reads a success as its op's answer, for a mover.
func decodeLocal[R any](r *wire.Reply) (*R, error) {
	a, err := wire.DecodeAnswer[R](r)
	if err != nil {
		return nil, undecodable(r, err)
	}
	return a, nil
}

func filesMover(a wire.FilesArgs) *mover {
	switch {
	case a.Action == "get" && a.To != "":
		return filesGetMover(a)
	case a.Action == "put" && a.From != "":
		return filesPutMover(a)
	}
	return nil
}

// filesGetMover has the file come back inline (dvvd's inline limit
// applies) and writes it to the local path.
func filesGetMover(a wire.FilesArgs) *mover {
	to := a.To
	return &mover{
		strip: func() (wire.Args, error) { a.To = ""; return a, nil },
		finish: func(r *wire.Reply) (wire.Answer, error) {
			ans, err := decodeLocal[wire.FilesAnswer](r)
			if err != nil {
				return nil, err
			}
			f := ans.Files
			if f == nil {
				return ans, nil
			}
			data, err := base64.StdEncoding.DecodeString(f.ContentBase64)
			if err != nil {
				return nil, wire.Errorf(wire.Internal, "dvvd sent content that is not base64: %v", err)
			}
			// The copy takes the remote file's permission bits (less the
			// umask), as scp does; 0600 when dvvd did not say them.
			perm := fs.FileMode(0o600)
			if m, err := strconv.ParseUint(f.Mode, 8, 32); err == nil && f.Mode != "" {
				perm = fs.FileMode(m) & 0o777
			}
			if err := WriteLocal(to, data, perm); err != nil {
				return nil, err
			}
			f.ContentBase64, f.To = "", to
			return ans, nil
		},
	}
}

// filesPutMover reads the local file here and sends it inline. A regular
// file over InlineMax is not read at all: dvvd streams it from the path. A
// pipe (or other special file) can be read only once, so one over the
// limit is refused rather than named: dvvd would read only what is left
// of it.
func filesPutMover(a wire.FilesArgs) *mover {
	mv := &mover{finish: func(*wire.Reply) (wire.Answer, error) { return nil, nil }}
	mv.strip = func() (wire.Args, error) {
		f, err := os.Open(a.From)
		if err != nil {
			return nil, wire.Errorf(wire.NotFound, "open %s: %v", a.From, err)
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return nil, wire.Errorf(wire.BadRequest, "stat %s: %v", a.From, err)
		}
		if st.Mode().IsRegular() && st.Size() > InlineMax {
			return nil, tooLargeInline(a.From)
		}
		data, err := io.ReadAll(io.LimitReader(f, InlineMax+1))
		if err != nil {
			return nil, wire.Errorf(wire.BadRequest, "read %s: %v", a.From, err)
		}
		if len(data) > InlineMax {
			if !st.Mode().IsRegular() {
				mv.consumed = true
				return nil, wire.Errorf(wire.TooLarge, "%s is not a regular file and carries more than the %d bytes that travel inline; dvv has read them and cannot read them again: save the data to a file and put that", a.From, InlineMax)
			}
			return nil, tooLargeInline(a.From) // it grew since the stat
		}
		a.From, a.ContentBase64 = "", base64.StdEncoding.EncodeToString(data)
		return a, nil
	}
	return mv
}

func tooLargeInline(path string) error {
	return wire.Errorf(wire.TooLarge, "%s is over %d bytes, more than travels inline; dvvd streams it from the path when it runs on this machine and the token has local.files", path, InlineMax)
}

// screenMover has the image come back inline and writes it to out.
func screenMover(a wire.ScreenArgs) *mover {
	out := a.Out
	if out == "" {
		return nil
	}
	return &mover{
		strip: func() (wire.Args, error) { a.Out = ""; return a, nil },
		finish: func(r *wire.Reply) (wire.Answer, error) {
			ans, err := decodeLocal[wire.ScreenAnswer](r)
			if err != nil {
				return nil, err
			}
			s := ans.Screen
			if s == nil || s.DataBase64 == "" {
				return ans, nil // a terminal's text or an unchanged damage-crop: no image
			}
			data, err := base64.StdEncoding.DecodeString(s.DataBase64)
			if err != nil {
				return nil, wire.Errorf(wire.Internal, "dvvd sent an image that is not base64: %v", err)
			}
			if err := WriteLocal(out, data, 0o600); err != nil {
				return nil, err
			}
			s.DataBase64, s.Path = "", out
			return ans, nil
		},
	}
}

// groupScreenMover has every member's image come back inline and writes
// them into outDir under the names dvvd itself would use.
func groupScreenMover(a wire.GroupRunArgs) *mover {
	outDir := a.OutDir
	if outDir == "" {
		return nil
	}
	return &mover{
		strip: func() (wire.Args, error) {
			a.OutDir = ""
			if err := localfile.OwnDir(outDir); err != nil {
				return nil, wire.Errorf(wire.BadRequest, "outDir: %v", err)
			}
			return a, nil
		},
		finish: func(r *wire.Reply) (wire.Answer, error) {
			ans, err := decodeLocal[wire.GroupRunAnswer](r)
			if err != nil {
				return nil, err
			}
			for i := range ans.Members {
				if err := writeMemberScreen(&ans.Members[i], outDir); err != nil {
					return nil, err
				}
			}
			return ans, nil
		},
	}
}

// writeMemberScreen writes a member's inline image into outDir and makes
// its answer name the file.
func writeMemberScreen(m *wire.MemberResult, outDir string) error {
	r, err := m.Reply()
	if err != nil || r.Result != wire.OpScreen {
		return nil
	}
	sa, err := wire.DecodeAnswer[wire.ScreenAnswer](r)
	if err != nil {
		return wire.Errorf(wire.Internal, "dvvd sent a member's screen that cannot be read: %v", err)
	}
	s := sa.Screen
	if s == nil || s.DataBase64 == "" {
		return nil
	}
	data, err := base64.StdEncoding.DecodeString(s.DataBase64)
	if err != nil {
		return wire.Errorf(wire.Internal, "dvvd sent an image that is not base64: %v", err)
	}
	ext := "png"
	if s.Mime == "image/jpeg" {
		ext = "jpg"
	}
	path := filepath.Join(outDir, fmt.Sprintf("%03d-%s.%s", m.Index, m.LimbID, ext))
	if err := WriteLocal(path, data, 0o600); err != nil {
		return err
	}
	s.DataBase64, s.Path = "", path
	if m.Response, err = wire.AnswerLine(nil, sa); err != nil {
		return wire.Errorf(wire.Internal, "encode member %d's answer: %v", m.Index, err)
	}
	return nil
}

// WriteLocal replaces path with data, only once all of it is written: a
// new file of permission bits perm (less the umask) beside path, renamed
// over it, so a symlink or another user's file at path is replaced, never
// written through or into. A character device at path (/dev/null) is
// written into: only root makes one, so nobody planted it, and renaming
// over it (which root may) would leave a regular file there for every
// other program. A block device, named pipe or socket is refused: a pipe
// another user made would hand them the bytes. A failure is a coded
// BAD_REQUEST.
func WriteLocal(path string, data []byte, perm fs.FileMode) error {
	if fi, err := os.Lstat(path); err == nil {
		switch m := fi.Mode(); {
		case m&fs.ModeCharDevice != 0:
			return writeDevice(path, data)
		case m&(fs.ModeDevice|fs.ModeNamedPipe|fs.ModeSocket) != 0:
			return &wire.Error{Code: wire.BadRequest, Message: fmt.Sprintf("%s is a %s, not a file: it is replaced only by a whole new file, never written into", path, fileKind(m)),
				Next: "name a regular file (or a new one) to write, or - for stdout (dvv screen --out -, dvv files get LIMB REMOTE -)"}
		}
	}
	tmp, err := localfile.CreateBeside(path, perm)
	if err != nil {
		return wire.Errorf(wire.BadRequest, "cannot write beside %s: %v", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return wire.Errorf(wire.BadRequest, "write %s: %v", path, err)
	}
	if err := tmp.Close(); err != nil {
		return wire.Errorf(wire.BadRequest, "write %s: %v", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return wire.Errorf(wire.BadRequest, "write %s: %v", path, err)
	}
	return nil
}

// writeDevice writes data into the character device at path.
func writeDevice(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return wire.Errorf(wire.BadRequest, "write %s: %v", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return wire.Errorf(wire.BadRequest, "write %s: %v", path, err)
	}
	if err := f.Close(); err != nil {
		return wire.Errorf(wire.BadRequest, "write %s: %v", path, err)
	}
	return nil
}

// fileKind names what a special file is, for WriteLocal's refusal.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "block device"
}
