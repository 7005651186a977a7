package configfile

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestWriteAtomicAndRead(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	p := filepath.Join(dir, "f.json")
	if b, err := Read(p); b != nil || err != nil {
		t.Fatalf("missing file: %q %v", b, err)
	}
	if err := WriteAtomic(p, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(p, []byte("two")); err != nil {
		t.Fatal(err)
	}
	b, err := Read(p)
	if err != nil || string(b) != "two" {
		t.Fatalf("%q %v", b, err)
	}
	st, _ := os.Stat(p)
	dst, _ := os.Stat(dir)
	if st.Mode().Perm() != 0o600 || dst.Mode().Perm() != 0o700 {
		t.Fatalf("modes %v %v", st.Mode(), dst.Mode())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("left behind: %v", ents)
	}
}

func TestReadRefusesOversizeAndNonRegular(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	f, _ := os.Create(big)
	f.Truncate(MaxSize + 1)
	f.Close()
	if _, err := Read(big); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("oversize: %v", err)
	}
	if _, err := Read(dir); err == nil {
		t.Fatal("a directory was read")
	}
}

func TestLockSerializes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	var mu sync.Mutex
	inside := 0
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, err := Lock(p)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			inside++
			if inside != 1 {
				t.Error("two holders at once")
			}
			mu.Unlock()
			mu.Lock()
			inside--
			mu.Unlock()
			release()
		}()
	}
	wg.Wait()
}

func TestDirFollowsXDG(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/c")
	if Dir() != "/c/dvv" {
		t.Fatal(Dir())
	}
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("HOME", "/h")
	if Dir() != "/h/.config/dvv" {
		t.Fatal(Dir())
	}
}
