package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestTokenLifecycle(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg", "dvv")
	path := filepath.Join(dir, "tokens.json")
	s, err := OpenTokenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	secret, info, err := s.Create(RoleOperator, []Capability{Exec, Exec}, "ci agent")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, TokenPrefix) || len(secret) != len(TokenPrefix)+43 {
		t.Fatalf("secret shape %q", secret)
	}
	if !strings.HasPrefix(info.ID, "tok-") || info.Role != RoleOperator || len(info.Caps) != 1 || info.Label != "ci agent" {
		t.Fatalf("info %+v", info)
	}
	w := info.Wire()
	if w.ID != info.ID || len(w.Caps) != 1 || w.Caps[0] != "exec" {
		t.Fatalf("wire %+v", w)
	}

	// On disk: 0600 in a 0700 directory, the hash and never the secret.
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v %v", st.Mode(), err)
	}
	if dst, _ := os.Stat(dir); dst.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %v", dst.Mode())
	}
	raw, _ := os.ReadFile(path)
	body := strings.TrimPrefix(secret, TokenPrefix)
	if strings.Contains(string(raw), body) || strings.Contains(string(raw), body[:16]) {
		t.Fatal("the token file holds the secret")
	}
	if !strings.Contains(string(raw), hashSecret(secret)) || !strings.Contains(string(raw), `"version": 1`) {
		t.Fatalf("token file lacks the hash or version:\n%s", raw)
	}

	g, err := s.Verify(secret)
	if err != nil {
		t.Fatal(err)
	}
	if g.TokenID != info.ID || g.Role != RoleOperator || !g.Has(Exec) || !g.Has(Control) || g.Has(FilesWrite) {
		t.Fatalf("grant %+v", g)
	}
	for _, bad := range []string{"", "dvv_", secret + "x", secret[:len(secret)-1], strings.ToUpper(secret), "Bearer " + secret, strings.Repeat("dvv_", 100)} {
		if _, err := s.Verify(bad); !errors.Is(err, ErrBadToken) {
			t.Errorf("Verify(%.12q…) = %v", bad, err)
		}
	}

	// A second store on the same file (another dvvd) sees the token, and a
	// revoke in one voids it in the other.
	other, err := OpenTokenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Verify(secret); err != nil {
		t.Fatalf("second store: %v", err)
	}
	if len(s.List()) != 1 || !s.Valid(info.ID) {
		t.Fatal("list/valid before revoke")
	}
	if err := other.Revoke(info.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Verify(secret); !errors.Is(err, ErrBadToken) {
		t.Fatalf("revoked token verified: %v", err)
	}
	if s.Valid(info.ID) || len(s.List()) != 0 {
		t.Fatal("revoked token still listed or valid")
	}
	if err := s.Revoke(info.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second revoke: %v", err)
	}
}

func TestTokenCreateRefusesBadInput(t *testing.T) {
	s, _ := OpenTokenStore(filepath.Join(t.TempDir(), "tokens.json"))
	if _, _, err := s.Create("root", nil, ""); err == nil {
		t.Error("unknown role accepted")
	}
	if _, _, err := s.Create(RoleObserver, []Capability{"sudo"}, ""); err == nil {
		t.Error("unknown capability accepted")
	}
	if _, _, err := s.Create(RoleObserver, nil, "two\nlines"); err == nil {
		t.Error("multi-line label accepted")
	}
	if len(s.List()) != 0 {
		t.Error("a refused create left a token")
	}
}

func TestTokenStoreConcurrentWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.json")
	a, _ := OpenTokenStore(path)
	b, _ := OpenTokenStore(path)
	var wg sync.WaitGroup
	secrets := make(chan string, 40)
	for i := 0; i < 40; i++ {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sec, _, err := s.Create(RoleObserver, nil, "")
			if err != nil {
				t.Error(err)
			}
			secrets <- sec
		}()
	}
	wg.Wait()
	close(secrets)
	if n := len(a.List()); n != 40 {
		t.Fatalf("%d tokens after 40 concurrent creates through two stores", n)
	}
	for sec := range secrets {
		if _, err := b.Verify(sec); err != nil {
			t.Fatal(err)
		}
	}
}

func TestTokenFileRefusals(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "tokens.json")
	os.WriteFile(p, []byte("not json"), 0o600)
	if _, err := OpenTokenStore(p); err == nil || !strings.Contains(err.Error(), "move it away") {
		t.Fatalf("garbage file: %v", err)
	}
	os.WriteFile(p, []byte(`{"version":99,"tokens":[]}`), 0o600)
	if _, err := OpenTokenStore(p); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("future version: %v", err)
	}
	os.WriteFile(p, []byte(`{"version":1,"tokens":[{"id":"tok-1","role":"observer","sha256":"zz"}]}`), 0o644)
	s, err := OpenTokenStore(p)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Fatalf("a loose token file was not tightened: %v", st.Mode())
	}
	if _, err := s.Verify("dvv_AAAA"); !errors.Is(err, ErrBadToken) {
		t.Fatal("a malformed stored hash matched")
	}
}

func BenchmarkVerify(b *testing.B) {
	s, _ := OpenTokenStore(filepath.Join(b.TempDir(), "tokens.json"))
	var secret string
	for i := 0; i < 20; i++ {
		secret, _, _ = s.Create(RoleOperator, nil, "")
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Verify(secret); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAllow(b *testing.B) {
	g, _ := NewGrant(RoleOperator, nil, "t")
	b.ReportAllocs()
	for b.Loop() {
		_ = g.AllowOp(nil, "click", "click")
	}
}

func FuzzVerify(f *testing.F) {
	s, _ := OpenTokenStore(filepath.Join(f.TempDir(), "tokens.json"))
	good, _, _ := s.Create(RoleObserver, nil, "")
	f.Add(good)
	f.Add("dvv_")
	f.Add("")
	f.Add("dvv_" + strings.Repeat("A", 300))
	f.Fuzz(func(t *testing.T, presented string) {
		g, err := s.Verify(presented)
		if presented == good {
			if err != nil || g.Role != RoleObserver {
				t.Fatalf("good token refused: %v", err)
			}
			return
		}
		if !errors.Is(err, ErrBadToken) {
			t.Fatalf("Verify(%q) = %+v, %v", presented, g, err)
		}
	})
}
