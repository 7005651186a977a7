package cli

import (
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

// writeLocal replaces path with data, only once all of it is written: a
// new 0600 file beside path, renamed over it, so a symlink or another
// user's file at path is replaced, never written through or into.
func writeLocal(path string, data []byte) error { return writeLocalPerm(path, data, 0o600) }

// writeLocalPerm is writeLocal for a new file of permission bits perm
// (less the umask, as for any new file).
func writeLocalPerm(path string, data []byte, perm fs.FileMode) error {
	tmp, err := localfile.CreateBeside(path, perm)
	if err != nil {
		return localErr(wire.BadRequest, "cannot write beside %s: %v", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return localErr(wire.BadRequest, "write %s: %v", path, err)
	}
	if err := tmp.Close(); err != nil {
		return localErr(wire.BadRequest, "write %s: %v", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return localErr(wire.BadRequest, "write %s: %v", path, err)
	}
	return nil
}

// screenFallback has the image come back inline and writes it to out.
func screenFallback(out string) *localFallback[wire.ScreenAnswer] {
	return &localFallback[wire.ScreenAnswer]{
		strip: func(req wire.Enveloped) error { req.(*wire.ScreenArgs).Out = ""; return nil },
		finish: func(resp *wire.ScreenAnswer) error {
			s := resp.Screen
			if s == nil || s.DataBase64 == "" {
				return nil // a terminal's text or an unchanged damage-crop: no image
			}
			data, err := base64.StdEncoding.DecodeString(s.DataBase64)
			if err != nil {
				return localErr(wire.Internal, "dvvd sent an image that is not base64: %v", err)
			}
			if err := writeLocal(out, data); err != nil {
				return err
			}
			s.DataBase64, s.Path = "", out
			return nil
		},
	}
}

// filesGetFallback has the file come back inline (dvvd's inline limit
// applies) and writes it to the local path.
func filesGetFallback(to string) *localFallback[wire.FilesAnswer] {
	return &localFallback[wire.FilesAnswer]{
		strip: func(req wire.Enveloped) error { req.(*wire.FilesArgs).To = ""; return nil },
		finish: func(resp *wire.FilesAnswer) error {
			f := resp.Files
			if f == nil {
				return nil
			}
			data, err := base64.StdEncoding.DecodeString(f.ContentBase64)
			if err != nil {
				return localErr(wire.Internal, "dvvd sent content that is not base64: %v", err)
			}
			// The copy takes the remote file's permission bits (less the
			// umask), as scp does; 0600 when dvvd did not say them.
			perm := fs.FileMode(0o600)
			if m, err := strconv.ParseUint(f.Mode, 8, 32); err == nil && f.Mode != "" {
				perm = fs.FileMode(m) & 0o777
			}
			if err := writeLocalPerm(to, data, perm); err != nil {
				return err
			}
			f.ContentBase64, f.To = "", to
			return nil
		},
	}
}

// filesPutFallback reads the local file here and sends it inline. A
// regular file over the inline limit is not read at all: dvvd streams it
// from the path. A pipe (or other special file) can be read only once, so
// one over the limit is refused rather than named: dvvd would read only
// what is left of it.
func filesPutFallback() *localFallback[wire.FilesAnswer] {
	fb := &localFallback[wire.FilesAnswer]{}
	fb.strip = func(r wire.Enveloped) error {
		req := r.(*wire.FilesArgs)
		f, err := os.Open(req.From)
		if err != nil {
			return localErr(wire.NotFound, "open %s: %v", req.From, err)
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return localErr(wire.BadRequest, "stat %s: %v", req.From, err)
		}
		if st.Mode().IsRegular() && st.Size() > inlinePutMax {
			return tooLargeInline(req.From)
		}
		data, err := io.ReadAll(io.LimitReader(f, inlinePutMax+1))
		if err != nil {
			return localErr(wire.BadRequest, "read %s: %v", req.From, err)
		}
		if len(data) > inlinePutMax {
			if !st.Mode().IsRegular() {
				fb.consumed = true
				return localErr(wire.TooLarge, "%s is not a regular file and carries more than the %d bytes that travel inline; dvv has read them and cannot read them again: save the data to a file and put that", req.From, inlinePutMax)
			}
			return tooLargeInline(req.From) // it grew since the stat
		}
		req.From, req.ContentBase64 = "", base64.StdEncoding.EncodeToString(data)
		return nil
	}
	return fb
}

func tooLargeInline(path string) error {
	return localErr(wire.TooLarge, "%s is over %d bytes, more than travels inline; dvvd streams it from the path when it runs on this machine and the token has local.files", path, inlinePutMax)
}

// groupScreenFallback has every member's image come back inline and writes
// them into outDir under the names dvvd itself would use.
func groupScreenFallback(outDir string) *localFallback[wire.GroupRunAnswer] {
	return &localFallback[wire.GroupRunAnswer]{
		strip: func(req wire.Enveloped) error {
			req.(*wire.GroupRunArgs).OutDir = ""
			if err := localfile.OwnDir(outDir); err != nil {
				return localErr(wire.BadRequest, "--out-dir: %v", err)
			}
			return nil
		},
		finish: func(resp *wire.GroupRunAnswer) error {
			for i := range resp.Members {
				m := &resp.Members[i]
				r, err := m.Reply()
				if err != nil || r.Result != wire.OpScreen {
					continue
				}
				sa, err := wire.DecodeAnswer[wire.ScreenAnswer](r)
				if err != nil {
					return localErr(wire.Internal, "dvvd sent a member's screen that cannot be read: %v", err)
				}
				s := sa.Screen
				if s == nil || s.DataBase64 == "" {
					continue
				}
				data, err := base64.StdEncoding.DecodeString(s.DataBase64)
				if err != nil {
					return localErr(wire.Internal, "dvvd sent an image that is not base64: %v", err)
				}
				ext := "png"
				if s.Mime == "image/jpeg" {
					ext = "jpg"
				}
				path := filepath.Join(outDir, fmt.Sprintf("%03d-%s.%s", m.Index, m.LimbID, ext))
				if err := writeLocal(path, data); err != nil {
					return err
				}
				s.DataBase64, s.Path = "", path
				if m.Response, err = wire.AnswerLine(nil, sa); err != nil {
					return localErr(wire.Internal, "encode member %d's answer: %v", m.Index, err)
				}
			}
			return nil
		},
	}
}
