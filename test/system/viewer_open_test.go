package system_test

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
)

// TestViewerOpensThroughAPrivatePage: `dvv viewer` gives the opener a
// page only the user can read, never the secret; it says "opened" only
// when the opener succeeded, and otherwise how to open the viewer;
// --no-open prints the link itself.
func TestViewerOpensThroughAPrivatePage(t *testing.T) {
	t.Parallel()
	d := startDaemon(t, "")
	secret, _ := viewerSecret(t, d, "viewer", "--json")
	bin := t.TempDir()
	argsFile := filepath.Join(t.TempDir(), "opener-args")
	opener := func(exit int) []string {
		script := fmt.Sprintf("#!/bin/sh\nprintf '%%s\\n' \"$@\" > '%s'\nexit %d\n", argsFile, exit)
		if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "DISPLAY=:77"}
	}

	// The opener succeeds: it was given the page, and the page holds the link.
	r := d.run("shell-a", "", opener(0), "viewer")
	if r.code != 0 || !strings.Contains(r.stderr, "opened in your browser") {
		t.Fatalf("with an opener that succeeds: %v", r)
	}
	args := strings.TrimSpace(readFile(argsFile))
	if strings.Contains(args, secret) {
		t.Fatalf("the opener's command line carries the secret: %q", args)
	}
	page, err := url.Parse(strings.TrimSpace(r.stdout))
	if err != nil || page.Scheme != "file" || page.Path != args {
		t.Fatalf("dvv printed %q and gave the opener %q: want the page's file:// address and its path", r.stdout, args)
	}
	fi, err := os.Stat(args)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the page %s: %v, mode %v; want 0600", args, err, fi.Mode())
	}
	if dir, _ := os.Stat(filepath.Dir(args)); dir.Mode().Perm() != 0o700 {
		t.Fatalf("the page's directory has mode %v; want 0700", dir.Mode().Perm())
	}
	if !strings.Contains(readFile(args), "#k="+secret) {
		t.Fatalf("the page does not send the browser to the viewer with its secret:\n%s", readFile(args))
	}

	// The opener fails: no "opened", and what to do instead.
	r = d.run("shell-a", "", opener(3), "viewer")
	if strings.Contains(r.stderr, "opened in your browser") || !strings.Contains(r.stderr, "did not open a browser") ||
		!strings.Contains(r.stderr, "file://") || !strings.Contains(r.stderr, "--no-open") {
		t.Fatalf("with an opener that fails: %v", r)
	}

	// No desktop: the same advice, without trying.
	r = d.run("shell-a", "", []string{"DISPLAY=", "WAYLAND_DISPLAY="}, "viewer")
	if strings.Contains(r.stderr, "opened in your browser") || !strings.Contains(r.stderr, "DISPLAY") || !strings.Contains(r.stderr, "--no-open") {
		t.Fatalf("without a desktop: %v", r)
	}

	// --no-open prints the link for a person to paste, and says what it is.
	r = d.must("viewer", "--no-open")
	if !strings.Contains(r.stdout, "#k="+secret) || !strings.Contains(r.stderr, "secret") {
		t.Fatalf("--no-open: %v", r)
	}
}

// TestViewerAddrFixesThePort: dvvd --viewer-addr puts the viewer on the
// port it names; a second dvvd asking for the same port is told which
// flag to change when the viewer cannot start.
func TestViewerAddrFixesThePort(t *testing.T) {
	t.Parallel()
	port := testbed.FreePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	d := startDaemonArgs(t, "", t.TempDir(), []string{"--viewer-addr", addr})
	secret, host := viewerSecret(t, d, "viewer", "--json")
	if host != addr {
		t.Fatalf("the viewer is on %s, want %s", host, addr)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/api/info", nil)
	req.Header.Set("Authorization", "Bearer "+secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /api/info on %s: %v %v", addr, resp, err)
	}
	resp.Body.Close()

	other := startDaemonArgs(t, "", t.TempDir(), []string{"--viewer-addr", fmt.Sprint(port)})
	r := other.dvv("viewer", "--no-open")
	if r.code == 0 || !strings.Contains(r.stderr, "--viewer-addr") || !strings.Contains(r.stderr, addr) {
		t.Fatalf("a second viewer on the same port: %v", r)
	}
}
