//go:build !darwin

package keychain_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/discovery"
	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/keychain"
	"github.com/dvvhq/dvv/pkg/policy"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestNoSecretLeaves stores a host password and mints a token, drives every
// API of hosts, keychain, policy and discovery the way the daemon does, and
// then searches everything those APIs said and every file under the
// temporary HOME, XDG and keyring directories for either secret.
func TestNoSecretLeaves(t *testing.T) {
	k := testbed.StartKeyring(t)
	const password = "Pw-9f3c1e7d-never-on-disk"
	var said bytes.Buffer // every answer, error and listing, as the daemon would send it
	say := func(v ...any) {
		for _, x := range v {
			if err, ok := x.(error); ok && err != nil {
				fmt.Fprintln(&said, err.Error())
				continue
			}
			b, _ := json.Marshal(x)
			said.Write(b)
			said.WriteByte('\n')
		}
	}

	store, err := hosts.Open(hosts.DefaultPath())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hosts.DefaultPath(), k.Home) {
		t.Fatalf("hosts path %s is outside the temporary HOME", hosts.DefaultPath())
	}
	kc := keychain.OpenLazy()
	h, err := store.Add(hosts.FromSpec(wire.HostSpec{Name: "lab", Protocol: "vnc", Address: "127.0.0.1", Port: 5901, SSHUser: "pat"}))
	say(h, err)
	if err := kc.Set(h.ID, "dvv lab", password); err != nil {
		t.Fatal(err)
	}
	for _, x := range store.List() {
		say(x.Wire(kc.Has(x.ID)))
	}
	got, err := kc.Get(h.ID)
	if got != password || err != nil {
		t.Fatalf("Get = %v", err)
	}
	_, err = kc.Get("h-00000000")
	say(err, keychain.WireError(err))
	say(kc.Set("", "", password), kc.Set("bad\nid", "", password))
	_, err = store.Add(hosts.Host{Name: "x y", Protocol: "vnc", Address: password})
	say(err)
	_, err = store.Add(hosts.Host{Name: "ok", Protocol: "vnc", Address: "a b " + password})
	say(err)
	say(store.Remove("missing"))
	os.MkdirAll(filepath.Join(k.Home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(k.Home, ".ssh", "config"), []byte("Host jump\n  HostName 127.0.0.1\n"), 0o600)
	for _, x := range hosts.SSHConfigHosts("") {
		say(x.Wire(kc.Has(x.ID)))
	}

	tokens, err := policy.OpenTokenStore(policy.DefaultTokenPath())
	if err != nil {
		t.Fatal(err)
	}
	token, info, err := tokens.Create(policy.RoleOperator, []policy.Capability{policy.Exec}, "agent")
	if err != nil {
		t.Fatal(err)
	}
	say(info.Wire(), tokens.List())
	g, err := tokens.Verify(token)
	say(err, g.List(), g.AllowOp(nil, wire.OpHostAdd, ""), g.Allow(nil, &wire.FilesArgs{Action: "get", To: "/tmp/x"}))
	_, err = tokens.Verify(token + "x")
	say(err)
	say(policy.CheckDelegation(g, policy.RoleOwner, nil))
	say(tokens.Revoke(info.ID), tokens.Revoke(info.ID))
	_, err = tokens.Verify(token)
	say(err)

	t.Setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path="+k.Dir+"/no-system-bus")
	b := discovery.Start(context.Background())
	testbed.Eventually(t, 5e9, "a discovery note", func() bool {
		_, note := b.List()
		return strings.Contains(note, "system bus")
	})
	list, note := b.List()
	say(list, note)
	b.Close()

	gone, err := store.RemoveHost("lab")
	say(gone, err)
	say(kc.Delete(gone.ID))
	if kc.Has(gone.ID) {
		t.Fatal("credential survives host removal")
	}
	_, err = kc.Get(gone.ID)
	if !errors.Is(err, keychain.ErrNotFound) {
		t.Fatalf("Get after delete: %v", err)
	}
	say(err)

	// Secrets go through the keychain's own encrypted file only.
	needles := [][]byte{[]byte(password), []byte(token), []byte(strings.TrimPrefix(token, policy.TokenPrefix))}
	for _, n := range needles {
		if bytes.Contains(said.Bytes(), n) {
			t.Fatalf("an answer carried a secret:\n%s", said.String())
		}
	}
	files := 0
	for _, root := range []string{k.Dir, os.Getenv("XDG_CONFIG_HOME"), os.Getenv("XDG_RUNTIME_DIR")} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Errorf("cannot read %s to search it: %v", p, err)
				return nil
			}
			files++
			for _, n := range needles {
				if bytes.Contains(b, n) {
					t.Errorf("%s holds a secret", p)
				}
			}
			return nil
		})
	}
	if files < 3 {
		t.Fatalf("searched only %d files; the walk missed the stores", files)
	}
	t.Logf("searched %d files and %d bytes of answers", files, said.Len())
}
