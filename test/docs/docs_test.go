// Package docs runs the shell commands README.md and docs/*.md show, so a
// documented command that stopped working fails a test.
//
// Every command line of every sh/bash/shell/console block is classified by
// the first rule of `rules` it matches: run (against a dvvd this test
// starts, in a throw-away home), run in a dry form, or skipped with the
// reason. A line no rule matches fails the test: a new example must be
// classified when it is written.
package docs

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rule classifies the command lines its pattern matches.
type rule struct {
	pattern *regexp.Regexp
	// skip says why the line is not run; empty: it is run.
	skip string
	// as is the dry form run instead of the line (empty: the line itself).
	as string
	// check judges a run's stdout beyond its exit status 0 (nil: none).
	check func(s *sandbox, stdout string) error
}

func skip(pattern, why string) rule {
	return rule{pattern: regexp.MustCompile(pattern), skip: why}
}

func runs(pattern, as string, check func(*sandbox, string) error) rule {
	return rule{pattern: regexp.MustCompile(pattern), as: as, check: check}
}

var rules = []rule{
	skip(`^make (demo|test)$`, "installs packages with apt as root and starts every test server; CI runs it"),
	skip(`^make (build|package|release|share)$`, "builds the whole tree; test/scripts's TestFormulaBuild runs make release and make share, scripts/package-smoke.sh make package"),
	skip(`^sudo apt install \./bin/dvv_`, "installs system-wide as root; scripts/package-smoke.sh installs the .deb in CI"),
	skip(`^sha256sum -c SHA256SUMS$|^tar -xzf dvv-VERSION\.tar\.gz`, "needs a release's files; TestFormulaBuild checks SHA256SUMS and builds the unpacked tarball"),
	skip(`^brew `, "Homebrew is not on this machine; TestFormulaBuild runs the formula's install and test steps"),
	skip(`^go install `, "downloads dvv through the module proxy, which these tests do not reach"),
	skip(`^claude mcp add `, "configures Claude Code, a client not installed here; pkg/mcp's tests drive dvvmcp over stdio"),
	skip(`^npx @modelcontextprotocol/inspector `, "an interactive inspector UI from npm; test/mcp-js drives dvvmcp from a Node client"),
	skip(`^dvv (open|wait|screen|control|click|type|key|run|files|share|term|find|expect|record|script|replay) `,
		"needs a remote machine (a VNC, RDP or SSH server) and its limb; test/e2e and test/system run these against real servers"),
	skip(`^dvv (windows|window|workspaces|inspect|element) `, "needs a Linux desktop with its SSH sidecar; test/system's TestWindowsOverTheSidecarMatchTheWindowManager and TestElementActsThroughTheCLIAreSeenByTheProgram run these against a real Xvnc session behind sshd"),
	skip(`^dvv hosts add \S+ .*--ssh-user \S+ && dvv open `, "saves and opens a desktop with its SSH sidecar; test/system's windows tests open such a limb against a real Xvnc session behind sshd"),
	skip(`^dvv machine `, "needs a VM and its hypervisor (QEMU's QMP or libvirt); test/system's TestMachine* run these against a real QEMU and libvirtd"),
	skip(`^dvv hosts add \S+ .*--machine `, "names a VM's hypervisor; test/system's TestMachineFromASavedHost saves and opens one against a real QEMU"),
	skip(`^printf '%s(\\n)?' "\$PW" \| dvv hosts add `, "stores a password in the keychain or the credentials file; pkg/keychain's tests start gnome-keyring, test/system's TestHostsAddWithoutKeychainWritesTheCredentialsFile runs it without one"),
	skip(`^printf '%s\\n' 'click 300 200' .* > login\.dvv$`, "writes the script the next line runs on a limb; test/system's TestScriptDrivesXtermAndXcalc runs such scripts against a real Xvnc"),
	skip(`^printf '%s\\n' "\$PW" \| dvv open `, "needs a remote machine that asks a password; test/system's TestOpenPasswordStdin runs it against a VncAuth Xvnc and a password-only sshd account"),
	skip(`^git archive \w+ \| tar -x -C /tmp/base && \(cd /tmp/base && go build `, "builds an earlier dvvd to compare against; the benchmark beside it runs the two"),
	skip(`^DVV_BENCH_BASE_DVVD=\S+ go test -tags bench `, "a benchmark of two builds on a desktop session, minutes long; make bench runs the bench tag"),
	skip(`^\(umask 077; printf 'lab:%s\\n' "\$PW" >> ~/\.config/dvv/credentials\)$`, "writes the reader's own credentials file; test/system's TestHostsAddWithoutKeychainWritesTheCredentialsFile has dvvd read such a file"),

	runs(`^printf '\{[^']*\}\\n' \| nc `, "", oneAnswer),
	runs(`^dvv service install$`, "dvv service install --no-start", unitsWritten),
	// Dry: no browser is opened; the link it would open is fetched instead.
	runs(`^dvv viewer$`, "dvv viewer --no-open", viewerLink),
	runs(`^dvv (pause --all|resume)$`, "", nil),
	runs(`^dvv socket$`, "", socketPath),
	runs(`^dvv (--help|-h|version|--version|ping|limbs|doctor)$`, "", nil),
}

// The files whose shell blocks are checked.
func documents(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../../README.md"}, files...)
}

func TestDocumentedCommands(t *testing.T) {
	var lines []commandLine
	for _, f := range documents(t) {
		lines = append(lines, shellLines(t, f)...)
	}
	if len(lines) < 10 {
		t.Fatalf("found only %d command lines in README.md and docs/", len(lines))
	}
	var s *sandbox
	ran, skipped := 0, 0
	for _, l := range lines {
		r := classify(l.text)
		switch {
		case r == nil:
			t.Errorf("%s: %q is not classified: add a rule to `rules` in test/docs/docs_test.go that runs it (in a dry form if need be) or skips it saying why", l.where, l.text)
		case r.skip != "":
			skipped++
			t.Logf("skipped %s: %s: %s", l.where, l.text, r.skip)
		default:
			if s == nil {
				s = newSandbox(t)
			}
			cmd := l.text
			if r.as != "" {
				cmd = r.as
			}
			out, err := s.run(cmd)
			if err == nil && r.check != nil {
				err = r.check(s, out)
			}
			if err != nil {
				t.Errorf("%s: %s: %v", l.where, cmd, err)
				continue
			}
			ran++
			t.Logf("ran %s: %s", l.where, cmd)
		}
	}
	if ran == 0 {
		t.Errorf("no documented command ran (%d skipped)", skipped)
	}
}

// A line no one would classify by accident: the table does not match it.
func TestUnclassifiedLineIsCaught(t *testing.T) {
	if r := classify("dvv frobnicate --all"); r != nil {
		t.Errorf("an unknown command matched %v", r.pattern)
	}
	if r := classify("dvv open 10.0.0.5 --protocol vnc"); r == nil || r.skip == "" {
		t.Errorf("dvv open is not skipped as needing a remote machine")
	}
}

func classify(line string) *rule {
	for i := range rules {
		if rules[i].pattern.MatchString(line) {
			return &rules[i]
		}
	}
	return nil
}

type commandLine struct {
	where string // file:line
	text  string
}

var fence = regexp.MustCompile("^```(sh|bash|shell|console)\\s*$")

// shellLines are the command lines of a Markdown file's shell blocks:
// continuations joined, comments and blank lines dropped; in a console
// block only the lines after a "$ " prompt.
func shellLines(t *testing.T, path string) []commandLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []commandLine
	sc := bufio.NewScanner(f)
	lang, n, pending, pendingAt := "", 0, "", 0
	name := strings.TrimPrefix(path, "../../")
	for sc.Scan() {
		n++
		l := sc.Text()
		if lang == "" {
			if m := fence.FindStringSubmatch(l); m != nil {
				lang = m[1]
			}
			continue
		}
		if strings.HasPrefix(l, "```") {
			lang = ""
			continue
		}
		if lang == "console" {
			if !strings.HasPrefix(l, "$ ") {
				continue
			}
			l = l[2:]
		}
		if pending == "" {
			pendingAt = n
		}
		if strings.HasSuffix(l, `\`) {
			pending += strings.TrimSuffix(l, `\`) + " "
			continue
		}
		l = strings.TrimSpace(stripComment(pending + l))
		pending = ""
		if l != "" {
			out = append(out, commandLine{where: fmt.Sprintf("%s:%d", name, pendingAt), text: l})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// stripComment drops a # comment that starts a word outside quotes.
func stripComment(l string) string {
	var quote rune
	for i, r := range l {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (i == 0 || l[i-1] == ' ' || l[i-1] == '\t'):
			return l[:i]
		}
	}
	return l
}

// sandbox is a throw-away home with dvv, dvvd and dvvmcp built from this
// tree first on PATH and a dvvd serving the default socket.
type sandbox struct {
	t       *testing.T
	env     []string
	home    string
	bin     string
	runtime string
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	root := t.TempDir()
	s := &sandbox{t: t, home: filepath.Join(root, "home"), bin: filepath.Join(root, "bin"), runtime: filepath.Join(root, "run")}
	for _, d := range []string{s.home, s.bin} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(s.runtime, 0o700); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", s.bin+"/", "../../cmd/dvv", "../../cmd/dvvd", "../../cmd/dvvmcp")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// Nothing from the caller's session leaks in: no socket, token,
	// display (the viewer would open a browser) or session name.
	s.env = []string{
		"PATH=" + s.bin + ":/usr/local/bin:/usr/bin:/bin",
		"HOME=" + s.home,
		"XDG_RUNTIME_DIR=" + s.runtime,
		"XDG_CONFIG_HOME=" + filepath.Join(s.home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(s.home, ".local/state"),
		"LANG=C.UTF-8",
	}
	ctx, cancel := context.WithCancel(context.Background())
	dvvd := exec.CommandContext(ctx, filepath.Join(s.bin, "dvvd"), "--no-discovery")
	dvvd.Env = s.env
	var logs bytes.Buffer
	dvvd.Stderr = &logs
	if err := dvvd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- dvvd.Wait() }()
	t.Cleanup(func() {
		cancel()
		<-exited
		if t.Failed() {
			t.Logf("dvvd's log:\n%s", logs.String())
		}
	})
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for range 600 {
		if fi, err := os.Stat(s.socket()); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return s
		}
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("dvvd exited (%v) before making %s:\n%s", err, s.socket(), logs.String())
		case <-tick.C:
		}
	}
	t.Fatalf("dvvd made no socket at %s:\n%s", s.socket(), logs.String())
	return nil
}

// socket is where dvvd and every client look by default here.
func (s *sandbox) socket() string { return filepath.Join(s.runtime, "dvv", "default.sock") }

// run runs one command line with bash in the sandbox; a line still running
// after 20 s is a failure (a documented command must end by itself).
func (s *sandbox) run(line string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", line)
	cmd.Env, cmd.Dir = s.env, s.home
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return stdout.String(), fmt.Errorf("still running after 20 s, so a script using it never goes on (a pipe into nc -U needs -N to end once dvvd has answered); stdout %q, stderr %q", stdout.String(), stderr.String())
	}
	if err != nil {
		return stdout.String(), fmt.Errorf("%v; stdout %q, stderr %q", err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

// oneAnswer: the raw socket answered with one JSON object with a result.
func oneAnswer(_ *sandbox, out string) error {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 1 {
		return fmt.Errorf("want one answer line from dvvd, got %q", out)
	}
	var resp struct {
		Result string `json:"result"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &resp); err != nil || resp.Result == "" {
		return fmt.Errorf("dvvd's answer %q is not a JSON object with a result (%v)", lines[0], err)
	}
	return nil
}

// unitsWritten: the user units are in the config home and run this dvvd.
func unitsWritten(s *sandbox, _ string) error {
	unit := filepath.Join(s.home, ".config/systemd/user/dvvd.service")
	b, err := os.ReadFile(unit)
	if err != nil {
		return fmt.Errorf("no unit written: %v", err)
	}
	if !strings.Contains(string(b), "ExecStart="+filepath.Join(s.bin, "dvvd")) {
		return fmt.Errorf("%s does not run %s:\n%s", unit, filepath.Join(s.bin, "dvvd"), b)
	}
	if _, err := os.Stat(filepath.Join(s.home, ".config/systemd/user/dvvd.socket")); err != nil {
		return fmt.Errorf("no socket unit written: %v", err)
	}
	return nil
}

// viewerLink: the printed link opens the viewer's page (the secret it
// carries becomes a cookie, as in a browser).
func viewerLink(_ *sandbox, out string) error {
	link := regexp.MustCompile(`(?m)^http://127\.0\.0\.1:\d+/\S*`).FindString(out)
	if link == "" {
		return fmt.Errorf("no 127.0.0.1 link in %q", out)
	}
	jar, _ := cookiejar.New(nil)
	resp, err := (&http.Client{Jar: jar, Timeout: 20 * time.Second}).Get(link)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(strings.ToLower(string(page)), "<html") {
		return fmt.Errorf("GET %s: %s, %.200q", link, resp.Status, page)
	}
	return nil
}

func socketPath(s *sandbox, out string) error {
	if strings.TrimSpace(out) != s.socket() {
		return fmt.Errorf("prints %q, dvvd listens on %s", strings.TrimSpace(out), s.socket())
	}
	return nil
}
