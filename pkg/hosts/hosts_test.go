package hosts

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

func newStore(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config", "dvv", "hosts.json")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return s, path
}

func TestAddListGetRemove(t *testing.T) {
	s, path := newStore(t)
	if len(s.List()) != 0 {
		t.Fatal("a missing file is not empty")
	}
	lab, err := s.Add(Host{Name: "lab", Protocol: "VNC", Address: "10.0.0.5", SSHUser: "pat"})
	if err != nil {
		t.Fatal(err)
	}
	if lab.ID != IDFor("lab") || !strings.HasPrefix(lab.ID, "h-") || len(lab.ID) != 10 || lab.Port != 5900 || lab.Protocol != "vnc" {
		t.Fatalf("added %+v", lab)
	}
	if again := IDFor("lab"); lab.ID != again || again == IDFor("lab2") {
		t.Fatal("ids are not reproducible per name")
	}
	win, _ := s.Add(Host{Name: "win", Protocol: "rdp", Address: "win.example", User: "me", Domain: "CORP"})
	box, _ := s.Add(Host{Name: "box", Protocol: "ssh", Address: "box", Port: 2222})
	if win.Port != 3389 || box.Port != 2222 {
		t.Fatalf("ports %d %d", win.Port, box.Port)
	}
	names := []string{}
	for _, h := range s.List() {
		names = append(names, h.Name)
	}
	if strings.Join(names, ",") != "box,lab,win" {
		t.Fatalf("list %v", names)
	}
	for _, key := range []string{"lab", lab.ID} {
		if h, ok := s.Get(key); !ok || h.ID != lab.ID || h.SSHUser != "pat" {
			t.Fatalf("Get(%s) = %+v %v", key, h, ok)
		}
	}
	if _, ok := s.Get("nope"); ok {
		t.Fatal("Get of a missing host")
	}

	// Same name replaces.
	if _, err := s.Add(Host{Name: "lab", Protocol: "vnc", Address: "10.0.0.6", Port: 5901}); err != nil {
		t.Fatal(err)
	}
	if h, _ := s.Get("lab"); h.Address != "10.0.0.6" || h.Port != 5901 || h.SSHUser != "" || len(s.List()) != 3 {
		t.Fatalf("replace: %+v (%d hosts)", h, len(s.List()))
	}

	// A fresh store reads the same file.
	again, err := Open(path)
	if err != nil || len(again.List()) != 3 {
		t.Fatalf("reopen: %v %d", err, len(again.List()))
	}
	if h, _ := again.Get("win"); h.Domain != "CORP" || h.User != "me" {
		t.Fatalf("reopened %+v", h)
	}

	gone, err := s.RemoveHost(win.ID)
	if err != nil || gone.Name != "win" {
		t.Fatalf("remove by id: %+v %v", gone, err)
	}
	if err := s.Remove("box"); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove("box"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second remove: %v", err)
	}
	if _, ok := again.Get("box"); ok {
		t.Fatal("another store still sees a removed host")
	}

	w := lab.Wire(true)
	if w.Source != SourceSaved || !w.HasCredential || w.ID != lab.ID {
		t.Fatalf("wire %+v", w)
	}
	if h := FromSpec(wire.HostSpec{Name: "x", Protocol: "ssh", Address: "a", SSHPort: 3}); h.SSHPort != 3 || h.Name != "x" {
		t.Fatalf("FromSpec %+v", h)
	}
}

func TestFileFormatAndModes(t *testing.T) {
	s, path := newStore(t)
	if _, err := s.Add(Host{Name: "lab", Protocol: "vnc", Address: "10.0.0.5"}); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("file mode %v", st.Mode())
	}
	dst, _ := os.Stat(filepath.Dir(path))
	if dst.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %v", dst.Mode())
	}
	var f struct {
		Version int              `json:"version"`
		Hosts   []map[string]any `json:"hosts"`
	}
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &f); err != nil || f.Version != FileVersion || len(f.Hosts) != 1 || f.Hosts[0]["id"] != IDFor("lab") {
		t.Fatalf("file %s: %v", b, err)
	}
	if _, ok := f.Hosts[0]["source"]; ok {
		t.Fatal("source written to the file")
	}
	// No temp files left behind.
	ents, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Fatalf("temp file left: %s", e.Name())
		}
	}
	// A loose file is tightened on read.
	os.Chmod(path, 0o644)
	if _, err := Open(path); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("loose file not tightened: %v", st.Mode())
	}
}

func TestAtomicWriteKeepsOldFileOnFailure(t *testing.T) {
	s, path := newStore(t)
	s.Add(Host{Name: "lab", Protocol: "vnc", Address: "a"})
	before, _ := os.ReadFile(path)
	lockDir(t, filepath.Dir(path))
	if _, err := s.Add(Host{Name: "other", Protocol: "vnc", Address: "b"}); err == nil {
		t.Fatal("write into a read-only directory succeeded")
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Fatal("a failed write changed the file")
	}
}

func TestReaderNeverSeesAPartialFile(t *testing.T) {
	s, path := newStore(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			name := "h" + strings.Repeat("x", i%50)
			s.Add(Host{Name: name, Protocol: "ssh", Address: "a"})
		}
	}()
	for i := 0; i < 300; i++ {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // not written yet
		}
		var f file
		if err := json.Unmarshal(b, &f); err != nil {
			close(stop)
			t.Fatalf("read a partial file: %v", err)
		}
	}
	close(stop)
	wg.Wait()
}

func TestConcurrentStoresKeepEveryHost(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hosts.json")
	a, _ := Open(path)
	b, _ := Open(path)
	var wg sync.WaitGroup
	for i := 0; i < 30; i++ {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if _, err := s.Add(Host{Name: "m" + strconv.Itoa(i), Protocol: "vnc", Address: "x"}); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	if n := len(a.List()); n != 30 {
		t.Fatalf("%d hosts after 30 adds through two stores", n)
	}
}

func TestAddRefusesBadHosts(t *testing.T) {
	s, _ := newStore(t)
	for _, h := range []Host{
		{Name: "lab", Protocol: "telnet", Address: "a"},
		{Name: "lab", Protocol: "", Address: "a"},
		{Name: "", Protocol: "vnc", Address: "a"},
		{Name: "two words", Protocol: "vnc", Address: "a"},
		{Name: "lab/1", Protocol: "vnc", Address: "a"},
		{Name: strings.Repeat("n", 65), Protocol: "vnc", Address: "a"},
		{Name: "h-0123abcd", Protocol: "vnc", Address: "a"},
		{Name: "ssh-box", Protocol: "vnc", Address: "a"},
		{Name: "lab", Protocol: "vnc", Address: ""},
		{Name: "lab", Protocol: "vnc", Address: "a b"},
		{Name: "lab", Protocol: "vnc", Address: "a", Port: 70000},
		{Name: "lab", Protocol: "vnc", Address: "a", Port: -1},
		{Name: "lab", Protocol: "vnc", Address: "a", SSHPort: 70000},
		{Name: "lab", Protocol: "ssh", Address: "a", SSHPort: 22},
		{Name: "lab", Protocol: "vnc", Address: "a", User: "x\ny"},
	} {
		_, err := s.Add(h)
		var we *wire.Error
		if !errors.As(err, &we) || we.Code != wire.BadRequest {
			t.Errorf("Add(%+v) = %v, want BAD_REQUEST", h, err)
		}
	}
	if len(s.List()) != 0 {
		t.Fatal("a refused host was saved")
	}
}

func TestOpenRefusesForeignFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "hosts.json")
	os.WriteFile(p, []byte("{"), 0o600)
	if _, err := Open(p); err == nil {
		t.Error("garbage accepted")
	}
	os.WriteFile(p, []byte(`{"version":2,"hosts":[]}`), 0o600)
	if _, err := Open(p); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("future version: %v", err)
	}
	if _, err := Open(dir); err == nil {
		t.Error("a directory accepted")
	}
}

func TestDefaultPathFollowsXDG(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/x/cfg")
	if DefaultPath() != "/x/cfg/dvv/hosts.json" {
		t.Fatal(DefaultPath())
	}
	t.Setenv("XDG_CONFIG_HOME", "relative")
	t.Setenv("HOME", "/home/u")
	if DefaultPath() != "/home/u/.config/dvv/hosts.json" {
		t.Fatal(DefaultPath())
	}
}

func BenchmarkAdd(b *testing.B) {
	s, _ := Open(filepath.Join(b.TempDir(), "hosts.json"))
	for i := 0; i < 50; i++ {
		s.Add(Host{Name: "m" + strings.Repeat("x", i), Protocol: "vnc", Address: "a"})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Add(Host{Name: "bench", Protocol: "vnc", Address: "a"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkList(b *testing.B) {
	s, _ := Open(filepath.Join(b.TempDir(), "hosts.json"))
	for i := 0; i < 50; i++ {
		s.Add(Host{Name: "m" + strings.Repeat("x", i), Protocol: "vnc", Address: "a"})
	}
	b.ReportAllocs()
	for b.Loop() {
		if len(s.List()) != 50 {
			b.Fatal("list")
		}
	}
}

// lockDir makes dir refuse new files for the rest of the test. Root
// ignores permissions, so as root (CI) the directory is made immutable.
func lockDir(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		os.Chmod(dir, 0o500)
		t.Cleanup(func() { os.Chmod(dir, 0o700) })
		return
	}
	testbed.Need(t, "chattr")
	if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
		testbed.Unavailable(t, "chattr +i %s (root ignores permissions; this file system must support the immutable flag): %v %s", dir, err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
}

// A host saved before addresses were split ("127.0.0.1:5975" beside the
// default port) reads back as the host and the port that was meant.
func TestOldHostPortAddressIsRepaired(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hosts.json")
	old := `{"version":1,"hosts":[` +
		`{"id":"a","name":"lab","protocol":"vnc","address":"127.0.0.1:5975","port":5900},` +
		`{"id":"b","name":"box","protocol":"ssh","address":"pat@build.lan","port":22},` +
		`{"id":"c","name":"odd","protocol":"vnc","address":"127.0.0.1:5975","port":5901}]}`
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if h, _ := s.Get("lab"); h.Address != "127.0.0.1" || h.Port != 5975 {
		t.Errorf("lab reads back as %s port %d, want 127.0.0.1 port 5975", h.Address, h.Port)
	}
	if h, _ := s.Get("box"); h.Address != "build.lan" || h.User != "pat" || h.Port != 22 {
		t.Errorf("box reads back as %s user %q port %d", h.Address, h.User, h.Port)
	}
	// Two different ports: which one was meant is not known; left alone.
	if h, _ := s.Get("odd"); h.Address != "127.0.0.1:5975" || h.Port != 5901 {
		t.Errorf("odd was changed: %s port %d", h.Address, h.Port)
	}
}
