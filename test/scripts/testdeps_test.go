// Package scripts tests the shell scripts under scripts/ by running them
// against stand-in programs and trees.
package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// machine is a fake Debian machine for scripts/testdeps.sh: bin is the
// whole PATH, root is TESTDEPS_ROOT, aptLog collects what apt-get is asked.
type machine struct {
	t      *testing.T
	bin    string
	root   string
	aptLog string
}

// table is testdeps.sh's own table, read from the script, so a line added to
// it is covered here without editing the test.
type table struct {
	programs map[string]string // program → package
	files    map[string]string // path → package
}

func readTable(t *testing.T) table {
	t.Helper()
	b, err := os.ReadFile(scriptPath(t, "testdeps.sh"))
	if err != nil {
		t.Fatal(err)
	}
	block := func(name string) map[string]string {
		m := regexp.MustCompile(`(?s)\n` + name + `='\n(.*?)'\n`).FindSubmatch(b)
		if m == nil {
			t.Fatalf("testdeps.sh has no %s='…' block", name)
		}
		out := map[string]string{}
		for _, line := range strings.Split(string(m[1]), "\n") {
			f := strings.Fields(line)
			if len(f) == 0 {
				continue
			}
			if len(f) != 2 {
				t.Fatalf("testdeps.sh %s line %q is not 'name package'", name, line)
			}
			out[f[0]] = f[1]
		}
		return out
	}
	return table{programs: block("table"), files: block("files")}
}

func scriptPath(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "scripts", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// newMachine has every program and file of the table, npm 10 and node 20,
// and an apt-get that records its arguments, one call a line.
func newMachine(t *testing.T, tb table) *machine {
	m := &machine{t: t, bin: t.TempDir(), root: t.TempDir()}
	m.aptLog = filepath.Join(t.TempDir(), "apt.log")
	// The few real tools the script itself runs; none is in the table.
	for _, tool := range []string{"grep", "id"} {
		real, err := exec.LookPath(tool)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(real, filepath.Join(m.bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	for prog := range tb.programs {
		m.program(prog, "exit 0")
	}
	for path := range tb.files {
		m.file(path)
	}
	m.file("/usr/share/tesseract-ocr/5/tessdata/eng.traineddata")
	m.program("node", "echo v20.11.1")
	m.program("npm", "echo 10.2.4")
	m.program("apt-get", `echo "$*" >>'`+m.aptLog+`'`)
	return m
}

func (m *machine) program(name, body string) {
	m.t.Helper()
	if err := os.WriteFile(filepath.Join(m.bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		m.t.Fatal(err)
	}
}

func (m *machine) remove(names ...string) {
	m.t.Helper()
	for _, n := range names {
		if err := os.Remove(filepath.Join(m.bin, n)); err != nil {
			m.t.Fatal(err)
		}
	}
}

func (m *machine) file(path string) {
	m.t.Helper()
	p := filepath.Join(m.root, path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		m.t.Fatal(err)
	}
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		m.t.Fatal(err)
	}
}

// dpkgNodejs makes dpkg-query answer for an installed nodejs package whose
// Provides field is provides.
func (m *machine) dpkgNodejs(provides string) {
	m.program("dpkg-query", `[ "$3" = nodejs ] || exit 1
printf '%s' '`+provides+`'`)
}

// run runs testdeps.sh, dry (the list it prints) or for real (what apt-get
// was asked), and returns the packages and its stderr.
func (m *machine) run(dry bool) (pkgs []string, aptCalls []string, stderr string) {
	m.t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		m.t.Fatal(err)
	}
	cmd := exec.Command(bash, scriptPath(m.t, "testdeps.sh"))
	cmd.Env = []string{"PATH=" + m.bin, "TESTDEPS_ROOT=" + m.root, "APT_GET=" + filepath.Join(m.bin, "apt-get")}
	if dry {
		cmd.Env = append(cmd.Env, "TESTDEPS_DRY_RUN=1")
	}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		m.t.Fatalf("testdeps.sh: %v\nstdout: %s\nstderr: %s", err, out.String(), errb.String())
	}
	if b, err := os.ReadFile(m.aptLog); err == nil {
		aptCalls = strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		os.Remove(m.aptLog)
	}
	if dry {
		if len(aptCalls) != 0 {
			m.t.Errorf("a dry run ran apt-get: %q", aptCalls)
		}
		return strings.Fields(out.String()), nil, errb.String()
	}
	return installed(m.t, aptCalls), aptCalls, errb.String()
}

// installed is the package list of the one `install` call among calls.
func installed(t *testing.T, calls []string) []string {
	t.Helper()
	var pkgs []string
	n := 0
	for _, c := range calls {
		f := strings.Fields(c)
		if len(f) == 0 || f[0] != "install" {
			continue
		}
		n++
		for _, a := range f[1:] {
			if !strings.HasPrefix(a, "-") {
				pkgs = append(pkgs, a)
			}
		}
	}
	if n > 1 {
		t.Errorf("apt-get install ran %d times: %q", n, calls)
	}
	return pkgs
}

// checkBoth runs the script dry and for real and wants exactly want from both.
func (m *machine) checkBoth(want ...string) (stderr string) {
	m.t.Helper()
	slices.Sort(want)
	dry, _, _ := m.run(true)
	slices.Sort(dry)
	if !slices.Equal(dry, want) {
		m.t.Errorf("dry run lists %q, want %q", dry, want)
	}
	got, calls, stderr := m.run(false)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		m.t.Errorf("apt-get was asked to install %q, want %q (calls %q)", got, want, calls)
	}
	if len(want) == 0 && len(calls) != 0 {
		m.t.Errorf("nothing is missing, yet apt-get ran: %q", calls)
	}
	if len(want) > 0 && (len(calls) != 2 || calls[0] != "update -q") {
		m.t.Errorf("apt-get calls %q, want update then one install", calls)
	}
	return stderr
}

func TestTestdepsAllPresentAsksNothing(t *testing.T) {
	tb := readTable(t)
	m := newMachine(t, tb)
	m.dpkgNodejs("nodejs-dev, nodejs-doc, nodejs-legacy, npm")
	m.checkBoth()
}

func TestTestdepsAsksOnlyForWhatIsMissing(t *testing.T) {
	tb := readTable(t)
	m := newMachine(t, tb)
	// Two programs of one package: the package is asked for once.
	m.remove("xdotool", "xdpyinfo", "xev", "ssh")
	if err := os.Remove(filepath.Join(m.root, "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")); err != nil {
		t.Fatal(err)
	}
	m.checkBoth(tb.programs["xdotool"], tb.programs["xdpyinfo"], tb.programs["ssh"], tb.files["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"])
}

// sshd lives in /usr/sbin, off a user's PATH: found there, it is not asked for.
func TestTestdepsFindsDaemonsInSbin(t *testing.T) {
	tb := readTable(t)
	m := newMachine(t, tb)
	m.remove("sshd", "xrdp")
	m.file("/usr/sbin/sshd")
	if err := os.Chmod(filepath.Join(m.root, "/usr/sbin/sshd"), 0o755); err != nil {
		t.Fatal(err)
	}
	m.checkBoth(tb.programs["xrdp"])
}

func TestTestdepsOCRDataMissing(t *testing.T) {
	tb := readTable(t)
	m := newMachine(t, tb)
	if err := os.RemoveAll(filepath.Join(m.root, "/usr/share/tesseract-ocr")); err != nil {
		t.Fatal(err)
	}
	m.checkBoth("tesseract-ocr-eng")
}

// NodeSource's node 20 with its own npm 10: Debian's npm conflicts with that
// nodejs, so neither npm nor nodejs is ever asked for, even when other
// packages are.
func TestTestdepsKeepsNodeSourceNpm(t *testing.T) {
	tb := readTable(t)
	m := newMachine(t, tb)
	m.dpkgNodejs("nodejs-dev, nodejs-doc, nodejs-legacy, npm")
	m.remove("xclip")
	m.checkBoth(tb.programs["xclip"])
}

// NodeSource's nodejs whose npm is gone: still not Debian's npm (apt would
// refuse it and everything else with it); stderr says what to do.
func TestTestdepsNodeSourceWithoutNpmAdvises(t *testing.T) {
	tb := readTable(t)
	m := newMachine(t, tb)
	m.dpkgNodejs("nodejs-dev, nodejs-doc, nodejs-legacy, npm")
	m.remove("npm", "tmux")
	stderr := m.checkBoth(tb.programs["tmux"])
	if !strings.Contains(stderr, "install the npm that belongs to that Node.js") {
		t.Errorf("stderr does not say what to do about npm: %q", stderr)
	}
}

func TestTestdepsNoNodeNoNpmAsksNpm(t *testing.T) {
	tb := readTable(t)
	m := newMachine(t, tb)
	m.remove("npm", "node")
	m.checkBoth("npm")
}

// Debian 13's own nodejs is 20 and provides no npm: Debian's npm goes with it.
func TestTestdepsDebianNode20WithoutNpmAsksNpm(t *testing.T) {
	tb := readTable(t)
	m := newMachine(t, tb)
	m.dpkgNodejs("")
	m.remove("npm")
	m.checkBoth("npm")
}

// An npm older than 7 cannot read the viewer's lock file.
func TestTestdepsOldNpmAsksNpm(t *testing.T) {
	tb := readTable(t)
	m := newMachine(t, tb)
	m.dpkgNodejs("")
	m.program("npm", "echo 6.14.4")
	m.checkBoth("npm")
}
