package system_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

// sharedStickyDir is a directory like /tmp: world-writable and sticky, so
// another user can plant names in it.
func sharedStickyDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "dvv-shared-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o1777); err != nil {
		t.Fatal(err)
	}
	return dir
}

// asNobody runs a command as the user nobody (another local user).
func asNobody(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command("setpriv", append([]string{"--reuid=65534", "--regid=65534", "--clear-groups"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("as nobody: %v: %v\n%s", args, err, out)
	}
}

// plantedOut is what another user left in a shared directory before the
// owner writes there: a symlink to the owner's file and a file of their
// own, readable by them, which the test keeps open to see its contents.
type plantedOut struct {
	victim, victimWas string   // the owner's file the link points to
	link, file        string   // the planted names
	fileHeld          *os.File // the planted file's inode, whatever its name becomes
}

func plant(t *testing.T, dir, linkName, fileName string) *plantedOut {
	t.Helper()
	p := &plantedOut{victim: filepath.Join(t.TempDir(), ".bashrc"), victimWas: "alias ls='ls --color'\n",
		link: filepath.Join(dir, linkName), file: filepath.Join(dir, fileName)}
	if err := os.WriteFile(p.victim, []byte(p.victimWas), 0o644); err != nil {
		t.Fatal(err)
	}
	asNobody(t, "ln", "-s", p.victim, p.link)
	asNobody(t, "sh", "-c", `umask 022; printf planted > "$1"`, "sh", p.file)
	f, err := os.Open(p.file)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	p.fileHeld = f
	return p
}

// check: the owner's file is as it was, the planted file's inode holds only
// what its owner put there, and each planted name now holds a new private
// file of this user's (root may replace names in a sticky directory).
func (p *plantedOut) check(t *testing.T) {
	t.Helper()
	if b, _ := os.ReadFile(p.victim); string(b) != p.victimWas {
		t.Errorf("the owner's %s was written through the planted link: now %d bytes", p.victim, len(b))
	}
	if b := make([]byte, 64); true {
		n, _ := p.fileHeld.ReadAt(b, 0)
		if string(b[:n]) != "planted" {
			t.Errorf("the file nobody planted at %s was written into: %d bytes", p.file, n)
		}
	}
	for _, name := range []string{p.link, p.file} {
		st, err := os.Lstat(name)
		if err != nil {
			t.Errorf("nothing at %s: %v", name, err)
			continue
		}
		if uid := st.Sys().(*syscall.Stat_t).Uid; !st.Mode().IsRegular() || int(uid) != os.Geteuid() || st.Mode().Perm() != 0o600 {
			t.Errorf("%s is %v owned by uid %d; want this user's new 0600 file", name, st.Mode(), uid)
		}
	}
}

// TestExportNeverWritesThroughAPlantedPath: another user (nobody) plants,
// in a sticky shared directory, a symlink to the owner's ~/.bashrc and a
// file of their own at the names `dvv record export --out` is given. The
// export never writes through the link nor into the planted file: it
// renders into a new file of its own and renames it over the name.
func TestExportNeverWritesThroughAPlantedPath(t *testing.T) {
	testbed.Need(t, "ffmpeg", "setpriv")
	testbed.NeedRoot(t, "planting files as another user")
	fbs := filepath.Join(t.TempDir(), "rec.fbs")
	writeRecording(t, fbs)
	d := &daemon{t: t, env: cleanEnv()}
	p := plant(t, sharedStickyDir(t), "x.mp4", "y.mp4")
	for _, out := range []string{p.link, p.file} {
		d.must("record", "export", fbs, "--mp4", "--out", out)
	}
	p.check(t)
}

// TestScreenReportAndGroupOutNeverFollowAPlant: the other paths dvv and
// dvvd write to (screen --out, written by dvvd or, with a token that lacks
// local.files, by dvv; report --out; group run screen --out-dir) replace a
// planted symlink or file rather than write through or into it, and a
// directory that is another user's symlink (to a directory of the owner's)
// is refused for --out-dir with nothing written there.
func TestScreenReportAndGroupOutNeverFollowAPlant(t *testing.T) {
	t.Parallel()
	testbed.Need(t, "setpriv")
	testbed.NeedRoot(t, "planting files as another user")
	d := startDaemon(t, "")
	x, limb := openVNC(t, d)
	shared := sharedStickyDir(t)
	observer := strings.TrimSpace(d.must("token", "create", "--role", "observer").stdout)

	p := plant(t, shared, "screen-link.png", "screen-file.png")
	d.must("screen", limb, "--out", p.link)
	d.must("screen", limb, "--out", p.file)
	p.check(t)

	p = plant(t, shared, "tok-link.png", "tok-file.png")
	for _, out := range []string{p.link, p.file} {
		if r := d.run("shell-observer", "", []string{"DVV_TOKEN=" + observer}, "screen", limb, "--out", out); r.code != 0 {
			t.Fatal(r)
		}
	}
	p.check(t)

	p = plant(t, shared, "report-link.tar.gz", "report-file.tar.gz")
	d.must("report", "--out", p.link)
	d.must("report", "--out", p.file)
	p.check(t)

	// --out-dir: nobody's symlink to a directory of the owner's.
	victimDir := t.TempDir()
	link := filepath.Join(shared, "shots")
	asNobody(t, "ln", "-s", victimDir, link)
	r := d.must("group", "open", "--address", x.Addr, "--protocol", "vnc", "--perceive")
	gid := strings.Fields(r.stdout)[0]
	d.must("group", "run", gid, "wait", "--args", `{"until":"connected","timeoutMs":10000}`)
	wantExit(t, d.dvv("group", "run", gid, "screen", "--out-dir", link, "--args", `{"scale":0.25}`), wire.ExitUsage, wire.BadRequest)
	r = d.run("shell-observer", "", []string{"DVV_TOKEN=" + observer}, "group", "run", gid, "screen", "--out-dir", link, "--args", `{"scale":0.25}`)
	wantExit(t, r, wire.ExitUsage, wire.BadRequest)
	if !strings.Contains(r.stderr, "another user") {
		t.Errorf("the refusal does not say why: %v", r)
	}
	if names, _ := os.ReadDir(victimDir); len(names) != 0 {
		t.Errorf("group run screen wrote %d files through nobody's symlink into %s", len(names), victimDir)
	}
}
