package cli

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/pkg/wire"
)

// dvv moves local bytes itself: the requests name no local path, the image
// and the fetched file are written here, and only a TOO_LARGE answer makes
// the request name the path for dvvd to stream.
func TestLocalBytesTravelInline(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	png := []byte("\x89PNG fake image bytes")
	var seen []*sentReq
	answer := func(r *sentReq) (wire.Answer, error) {
		c := *r
		seen = append(seen, &c)
		switch {
		case r.Op == wire.OpScreen:
			return &wire.ScreenAnswer{Screen: &wire.Screen{Mime: "image/png", DataBase64: base64.StdEncoding.EncodeToString(png), ImageSpaceLine: "imageSpace: …"}}, nil
		case r.Action == "get" && r.To == "":
			if r.Path == "big" {
				return nil, wire.Errorf(wire.TooLarge, "over the inline limit")
			}
			return &wire.FilesAnswer{Files: &wire.FilesResult{Bytes: 5, ContentBase64: base64.StdEncoding.EncodeToString([]byte("hello"))}}, nil
		}
		if r.Op == wire.OpFiles {
			return &wire.FilesAnswer{Files: &wire.FilesResult{}}, nil
		}
		return nil, nil // group_run: no member
	}

	req, code, _, errs := answered(t, "", answer, "group", "run", "grp-1", "screen", "--out-dir", "shots")
	var out string
	if code != 0 || req.OutDir != "" {
		t.Fatalf("group screen: exit %d, sent %s, %q", code, requestJSON(t, req), errs)
	}
	if fi, err := os.Stat("shots"); err != nil || !fi.IsDir() {
		t.Fatalf("group screen did not make its directory: %v", err)
	}

	req, code, out, errs = answered(t, "", answer, "screen", "vnc-1", "--out", "shots/../shot.png")
	if code != 0 || req.Out != "" || !strings.Contains(out, filepath.Join(dir, "shot.png")) {
		t.Fatalf("screen: exit %d, sent %s, %q %q", code, requestJSON(t, req), out, errs)
	}
	if b, err := os.ReadFile("shot.png"); err != nil || string(b) != string(png) {
		t.Fatalf("shot.png holds %q (%v)", b, err)
	}

	req, code, _, errs = answered(t, "", answer, "files", "get", "ssh-1", "~/notes.txt")
	if code != 0 || req.To != "" {
		t.Fatalf("files get: exit %d, sent %s, %q", code, requestJSON(t, req), errs)
	}
	if b, err := os.ReadFile("notes.txt"); err != nil || string(b) != "hello" {
		t.Fatalf("notes.txt holds %q (%v)", b, err)
	}

	seen = nil
	_, code, _, errs = answered(t, "", answer, "files", "get", "ssh-1", "big", "big.bin")
	if code != 0 || len(seen) != 2 || seen[0].To != "" || seen[1].To != filepath.Join(dir, "big.bin") {
		t.Fatalf("a file over the inline limit: exit %d %q, sent %d requests", code, errs, len(seen))
	}

	if err := os.WriteFile("up.txt", []byte("up"), 0o600); err != nil {
		t.Fatal(err)
	}
	req, code, _, errs = answered(t, "", answer, "files", "put", "ssh-1", "up.txt", "~/up.txt", "--mode", "0600")
	if code != 0 || req.From != "" || req.Mode == nil || *req.Mode != 0o600 || req.ContentBase64 != base64.StdEncoding.EncodeToString([]byte("up")) {
		t.Fatalf("files put: exit %d, sent %s, %q", code, requestJSON(t, req), errs)
	}
}
