package scripts

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/dvvhq/dvv/internal/testbed"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestFormulaBuild is the Homebrew formula's life with no brew: `make
// release` makes the tarball and the formula; the formula's url and sha256
// name that tarball; its install steps run in the unpacked tarball with no
// npm on PATH and no network (no module proxy, an empty module cache); the
// dvvd they build answers on a socket, and its viewer serves noVNC and
// xterm.js, byte for byte the files the tarball carries.
func TestFormulaBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a release and the binaries from it")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	_, err = os.Stat(filepath.Join(repo, "pkg/viewer/assets/dist/xterm/xterm.mjs"))
	assetsBuilt := err == nil
	if _, err := exec.LookPath("npm"); err != nil && !assetsBuilt {
		testbed.Unavailable(t, "npm is missing and the viewer assets are not built: `make release` builds them with npm (scripts/testdeps.sh installs it)")
	}
	const version = "9.8.7-test.1"
	dist := t.TempDir()
	start := time.Now()
	args := []string{"release", "VERSION=" + version, "DIST=" + dist}
	if assetsBuilt {
		// Built already (make test runs make web first): remaking them
		// would rewrite the directory while other packages of the same
		// `go test` run embed it.
		args = append([]string{"-o", "web"}, args...)
	}
	run(t, repo, os.Environ(), "make", args...)
	t.Logf("make release: %s", time.Since(start).Round(time.Second))

	tarball := "dvv-" + version + ".tar.gz"
	sum := checkSums(t, dist, tarball)
	formula := readString(t, filepath.Join(dist, "dvv.rb"))
	for _, want := range []string{
		`url "https://github.com/dvvhq/dvv/releases/download/v` + version + `/` + tarball + `"`,
		`sha256 "` + sum + `"`,
	} {
		if !strings.Contains(formula, want) {
			t.Errorf("dvv.rb lacks %s:\n%s", want, formula)
		}
	}
	if regexp.MustCompile(`@[A-Z0-9]+@`).MatchString(formula) {
		t.Errorf("dvv.rb has an unfilled placeholder:\n%s", formula)
	}

	src := t.TempDir()
	run(t, src, os.Environ(), "tar", "-xzf", filepath.Join(dist, tarball))
	src = filepath.Join(src, "dvv-"+version)
	env := offlineEnv(t)
	start = time.Now()
	for _, argv := range formulaSystemCalls(t, block(t, formula, "def install"), version) {
		run(t, src, env, argv[0], argv[1:]...)
	}
	t.Logf("the formula's build: %s", time.Since(start).Round(time.Second))
	for _, p := range installedPaths(block(t, formula, "def install")) {
		if m, _ := filepath.Glob(filepath.Join(src, p)); len(m) == 0 {
			t.Errorf("the formula installs %s, which its build did not make", p)
		}
	}

	test := block(t, formula, "test do")
	for _, want := range []string{`"--socket"`, " ping", " version"} {
		if !strings.Contains(test, want) {
			t.Errorf("the formula's test does not run %q against a dvvd:\n%s", want, test)
		}
	}
	if !strings.Contains(test, `.chmod 0700`) {
		t.Errorf("the formula's test does not make its socket directory 0700 (dvvd refuses any other):\n%s", test)
	}
	bin := filepath.Join(src, "bin")
	socket := filepath.Join(privateDir(t), "dvvd.sock")
	startDvvd(t, filepath.Join(bin, "dvvd"), socket)
	dvv := func(args ...string) string {
		return run(t, src, env, filepath.Join(bin, "dvv"), append([]string{"--socket", socket}, args...)...)
	}
	dvv("ping")
	if out := dvv("version"); !strings.Contains(out, "dvvd "+version) {
		t.Errorf("dvv version against the built dvvd says %q, want dvvd %s", out, version)
	}
	link := strings.TrimSpace(dvv("viewer", "--no-open"))
	checkViewerAssets(t, link, src)
}

// checkSums wants SHA256SUMS to hold the tarball's true checksum.
func checkSums(t *testing.T, dist, tarball string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dist, tarball))
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(b)
	sum := hex.EncodeToString(h[:])
	if got := readString(t, filepath.Join(dist, "SHA256SUMS")); got != sum+"  "+tarball+"\n" {
		t.Errorf("SHA256SUMS is %q, the tarball's sum is %s", got, sum)
	}
	return sum
}

// offlineEnv is a build environment with neither npm nor node, no module
// proxy and an empty module cache: only what the tarball carries builds.
// Beside the shell's tools it has what the formula's depends_on and the
// system compiler give a Homebrew build: pkg-config and a C toolchain, for
// dvvocr's cgo.
func offlineEnv(t *testing.T) []string {
	t.Helper()
	tools := t.TempDir()
	for _, tool := range []string{"make", "sh", "bash", "rm", "mkdir", "gzip", "cat", "sed", "date", "dirname", "printf",
		"pkg-config", "cc", "gcc", "as", "ld"} {
		real, err := exec.LookPath(tool)
		if err != nil {
			continue
		}
		if err := os.Symlink(real, filepath.Join(tools, tool)); err != nil {
			t.Fatal(err)
		}
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	return []string{
		"PATH=" + tools + ":" + filepath.Join(strings.TrimSpace(string(goroot)), "bin"),
		"HOME=" + home,
		"GOPROXY=off",
		"GOTOOLCHAIN=local",
		"GOMODCACHE=" + t.TempDir(),
		// The build cache holds no network state; sharing it keeps the
		// test to the compile it needs.
		"GOCACHE=" + strings.TrimSpace(string(gocache)),
		"XDG_RUNTIME_DIR=" + t.TempDir(),
	}
}

// block is the lines of the Ruby block opened by the line starting with
// head, up to its end at the same indentation.
func block(t *testing.T, rb, head string) string {
	t.Helper()
	lines := strings.Split(rb, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != head {
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
		for j := i + 1; j < len(lines); j++ {
			if lines[j] == indent+"end" {
				return strings.Join(lines[i+1:j], "\n")
			}
		}
	}
	t.Fatalf("the formula has no %q block:\n%s", head, rb)
	return ""
}

var (
	systemCall = regexp.MustCompile(`(?m)^\s*system\s+(.*)$`)
	rubyString = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
)

// formulaSystemCalls are the `system "prog", "arg", …` lines of a block,
// with #{version} filled in. Any other Ruby in an argument fails the test:
// it would need brew to mean something.
func formulaSystemCalls(t *testing.T, body, version string) [][]string {
	t.Helper()
	var calls [][]string
	for _, m := range systemCall.FindAllStringSubmatch(body, -1) {
		rest := m[1]
		var argv []string
		for _, s := range rubyString.FindAllStringSubmatch(rest, -1) {
			a := strings.ReplaceAll(s[1], "#{version}", version)
			if strings.Contains(a, "#{") || strings.Contains(a, `\`) {
				t.Fatalf("formula argument %q needs brew to be read", s[1])
			}
			argv = append(argv, a)
		}
		if strings.ReplaceAll(rubyString.ReplaceAllString(rest, ""), " ", "") != strings.Repeat(",", len(argv)-1) {
			t.Fatalf("formula line %q is not a plain `system \"…\", …`", m[0])
		}
		calls = append(calls, argv)
	}
	if len(calls) == 0 {
		t.Fatalf("the formula's install runs nothing:\n%s", body)
	}
	return calls
}

// installedPaths are the build outputs the install block copies (the
// strings under bin/ it names; globs allowed).
func installedPaths(body string) []string {
	var out []string
	for _, s := range rubyString.FindAllStringSubmatch(body, -1) {
		if strings.HasPrefix(s[1], "bin/") {
			out = append(out, s[1])
		}
	}
	return out
}

func startDvvd(t *testing.T, dvvd, socket string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, dvvd, "--no-discovery", "--socket", socket)
	var logs bytes.Buffer
	cmd.Stderr = &logs
	cmd.Env = []string{"HOME=" + t.TempDir(), "XDG_RUNTIME_DIR=" + t.TempDir(), "PATH=/usr/bin:/bin"}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cancel()
		<-exited
	})
	// dvvd binds its socket before it serves: wait for the file, then the
	// callers' first request is answered.
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for range 600 {
		if fi, err := os.Stat(socket); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return
		}
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("dvvd exited (%v) before making its socket:\n%s", err, logs.String())
		case <-tick.C:
		}
	}
	t.Fatalf("dvvd made no socket at %s:\n%s", socket, logs.String())
}

// privateDir is a directory dvvd accepts for its socket (mode 0700).
func privateDir(t *testing.T) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(d, 0o700); err != nil {
		t.Fatal(err)
	}
	return d
}

// checkViewerAssets opens the viewer link as a browser does (the secret
// becomes a cookie) and fetches noVNC's and xterm.js's entry files.
func checkViewerAssets(t *testing.T, link, src string) {
	t.Helper()
	if !strings.HasPrefix(link, "http://127.0.0.1:") {
		t.Fatalf("dvv viewer printed %q, not a 127.0.0.1 link", link)
	}
	// The secret rides in the link's fragment; the page sends it as a bearer.
	_, secret, _ := strings.Cut(link, "#k=")
	if secret == "" {
		t.Fatalf("dvv viewer printed %q, with no #k= secret", link)
	}
	c := &http.Client{Timeout: 30 * time.Second}
	get := func(u string) []byte {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+secret)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s %s", u, resp.Status, b)
		}
		return b
	}
	get(link)
	base := link[:strings.Index(link[len("http://"):], "/")+len("http://")]
	var info struct{ NoVNC, Xterm bool }
	if err := json.Unmarshal(get(base+"/api/info"), &info); err != nil {
		t.Fatal(err)
	}
	if !info.NoVNC || !info.Xterm {
		t.Errorf("the viewer says novnc=%v xterm=%v: the build lacks its assets", info.NoVNC, info.Xterm)
	}
	for _, f := range []string{"dist/novnc/core/rfb.js", "dist/xterm/xterm.mjs", "dist/xterm/xterm.css"} {
		want := readString(t, filepath.Join(src, "pkg/viewer/assets", f))
		if got := string(get(base + "/assets/" + f)); got != want || len(want) == 0 {
			t.Errorf("the viewer serves %d bytes of %s, the tarball carries %d", len(got), f, len(want))
		}
	}
}

// run runs a command in dir and returns its stdout; a failure ends the test
// with its output.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s (in %s): %v\nstdout: %s\nstderr: %s", name, strings.Join(args, " "), dir, err, tail(out.String()), tail(errb.String()))
	}
	return out.String()
}

func tail(s string) string {
	sc := bufio.NewScanner(strings.NewReader(s))
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) > 40 {
		lines = append([]string{fmt.Sprintf("… %d lines", len(lines)-40)}, lines[len(lines)-40:]...)
	}
	return strings.Join(lines, "\n")
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
