package viewer

import (
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recordingsOnly is a backend with nothing but a recordings directory.
type recordingsOnly struct {
	Backend
	dir string
}

func (b recordingsOnly) RecordingsDir() (string, error) { return b.dir, nil }

// The recordings routes serve files of dvvd's recordings directory only,
// to a page holding either secret: a name that climbs out ("..", a
// separator) is refused before any file is opened, and a link inside the
// directory that leads out is not followed.
func TestRecordingRoutesStayInTheirDirectory(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "recordings")
	os.Mkdir(dir, 0o700)
	secret := filepath.Join(base, "secret.cast")
	os.WriteFile(secret, []byte(`{"version":2,"width":80,"height":24}`+"\n"+`[0.1, "o", "the secret"]`+"\n"), 0o600)
	name := "ssh-1-20261201T130624.533.cast"
	os.WriteFile(filepath.Join(dir, name), []byte(`{"version":2,"width":80,"height":24}`+"\n"+`[0.5, "o", "hello"]`+"\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "ssh-1-20261201T130624.533.acts.jsonl"), []byte(`{"t":0.4,"op":"term_send","attachment":"a","textLen":5,"outcome":"ok"}`+"\n"), 0o600)
	link := "ssh-2-20261201T130700.000.cast"
	if err := os.Symlink(secret, filepath.Join(dir, link)); err != nil {
		t.Fatal(err)
	}
	s, err := Start(recordingsOnly{dir: dir}, 0, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	get := func(path, key string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, "http://"+s.Addr()+path, nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/api/recordings", s.readOnly); code != 200 || !strings.Contains(body, `"name":"`+name+`"`) || strings.Contains(body, link) || !strings.Contains(body, `"acts":1`) {
		t.Fatalf("list with the read-only secret: %d %s", code, body)
	}
	if code, body := get("/api/recordings/"+name+"/cast", s.readOnly); code != 200 || !strings.Contains(body, "hello") {
		t.Fatalf("a cast with the read-only secret: %d %s", code, body)
	}
	if code, body := get("/api/recordings/"+name+"/acts", s.full); code != 200 || !strings.Contains(body, `"textLen":5`) {
		t.Fatalf("acts: %d %s", code, body)
	}
	if code, _ := get("/api/recordings/"+name+"/cast", ""); code != http.StatusUnauthorized {
		t.Fatalf("without a secret: %d", code)
	}
	for _, bad := range []string{"..%2Fsecret.cast", "..%2F..%2Frecordings%2F" + name, "%2E%2E%2Fsecret.cast", "%2E%2E", "x..cast"} {
		if code, body := get("/api/recordings/"+bad+"/cast", s.full); code != http.StatusBadRequest || strings.Contains(body, "the secret") {
			t.Errorf("%s: %d %s", bad, code, body)
		}
	}
	if code, body := get("/api/recordings/"+link+"/cast", s.full); code != http.StatusNotFound || strings.Contains(body, "the secret") {
		t.Errorf("a link out of the directory: %d %s", code, body)
	}
	if code, _ := get("/api/recordings/passwd/cast", s.full); code != http.StatusBadRequest {
		t.Errorf("a name that is no recording's: %d", code)
	}
	if code, body := get("/api/recordings/"+name+"/meta", s.full); code != 200 || !strings.Contains(body, `"cols":80`) || !strings.Contains(body, `"durationMs":500`) {
		t.Errorf("meta: %d %s", code, body)
	}
}
