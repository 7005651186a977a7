//go:build !darwin

package keychain

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
	"github.com/godbus/dbus/v5"
)

func TestSecretServiceRoundTrip(t *testing.T) {
	k := testbed.StartKeyring(t)
	kc, err := Open()
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	const id, secret = "h-0011aabb", "s3cr3t-ÄÖ-\"quoted\" pass"
	if kc.Has(id) {
		t.Fatal("Has before Set")
	}
	if _, err := kc.Get(id); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get before Set: %v, want ErrNotFound", err)
	}
	if err := kc.Set(id, "dvv lab", secret); err != nil {
		t.Fatalf("Set: %v", err)
	}
	if !kc.Has(id) {
		t.Fatal("Has after Set is false")
	}
	if got, err := kc.Get(id); err != nil || got != secret {
		t.Fatalf("Get = %q, %v", got, err)
	}
	// Ground truth from libsecret, by the documented attributes.
	out, err := k.SecretTool(t, "", "lookup", AttrApplication, Application, AttrHost, id, AttrKind, KindPassword)
	if err != nil || out != secret {
		t.Fatalf("secret-tool lookup = %q, %v; want the stored secret", out, err)
	}

	// Set again replaces rather than adds.
	if err := kc.Set(id, "dvv lab", "second"); err != nil {
		t.Fatal(err)
	}
	if got, _ := kc.Get(id); got != "second" {
		t.Fatalf("after replace Get = %q", got)
	}
	out, _ = k.SecretTool(t, "", "search", "--all", AttrApplication, Application, AttrHost, id)
	if n := strings.Count(out, "[/"); n != 1 {
		t.Fatalf("secret-tool search found %d items after a replace, want 1:\n%s", n, out)
	}

	// An item written by another client with the same attributes is read.
	const other = "h-99887766"
	if _, err := k.SecretTool(t, "from-libsecret", "store", "--label=x", AttrApplication, Application, AttrHost, other, AttrKind, KindPassword); err != nil {
		t.Fatal(err)
	}
	if got, err := kc.Get(other); err != nil || got != "from-libsecret" {
		t.Fatalf("Get of a secret-tool item = %q, %v", got, err)
	}

	if err := kc.Delete(id); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if kc.Has(id) {
		t.Fatal("Has after Delete")
	}
	if _, err := kc.Get(id); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get after Delete: %v", err)
	}
	if err := kc.Delete(id); err != nil {
		t.Fatalf("second Delete: %v", err)
	}
	if out, _ := k.SecretTool(t, "", "lookup", AttrApplication, Application, AttrHost, id); out != "" {
		t.Fatalf("secret-tool still finds the deleted secret")
	}
	if got, _ := kc.Get(other); got != "from-libsecret" {
		t.Fatal("Delete of one host touched another")
	}
	if we := WireError(ErrNotFound); we.Code != wire.NotFound {
		t.Fatalf("ErrNotFound maps to %s", we.Code)
	}
}

func TestSecretServiceReconnectsAfterBusLoss(t *testing.T) {
	testbed.StartKeyring(t)
	kc := OpenLazy()
	if err := kc.Set("h-00000001", "", "one"); err != nil {
		t.Fatal(err)
	}
	// Drop the connection under the keychain; the next call must redial.
	ss := kc.(*secretService)
	ss.mu.Lock()
	ss.conn.Close()
	ss.mu.Unlock()
	if got, err := kc.Get("h-00000001"); err != nil || got != "one" {
		t.Fatalf("Get after the connection dropped = %q, %v", got, err)
	}
}

func checkUnavailable(t *testing.T, err error, wantInReason string) {
	t.Helper()
	var ue *UnavailableError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v (%T), want *UnavailableError", err, err)
	}
	msg := err.Error()
	if !strings.Contains(msg, wantInReason) {
		t.Fatalf("message %q does not say %q", msg, wantInReason)
	}
	if !strings.Contains(msg, "gnome-keyring-daemon") && !strings.Contains(msg, "Unlock") {
		t.Fatalf("message %q does not say how to get a keychain", msg)
	}
	if ue.Wire().Code != wire.KeychainMissing {
		t.Fatalf("code %s", ue.Wire().Code)
	}
}

func TestNoBusIsUnavailable(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	_, err := Open()
	checkUnavailable(t, err, "DBUS_SESSION_BUS_ADDRESS")

	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+t.TempDir()+"/nothing")
	_, err = Open()
	checkUnavailable(t, err, "cannot reach the D-Bus session bus")

	kc := OpenLazy()
	if kc.Has("h-00000001") {
		t.Fatal("Has without a keychain")
	}
	_, err = kc.Get("h-00000001")
	checkUnavailable(t, err, "cannot reach")
	checkUnavailable(t, kc.Set("h-00000001", "", "x"), "cannot reach")
}

func TestBusWithoutProviderIsUnavailable(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", testbed.StartBareSessionBus(t))
	_, err := Open()
	checkUnavailable(t, err, "no Secret Service provider")
}

func TestLockedKeyringIsUnavailable(t *testing.T) {
	k := testbed.StartKeyring(t)
	kc, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	if err := kc.Set("h-00000002", "", "before-lock"); err != nil {
		t.Fatal(err)
	}
	// Lock the default keyring from another client.
	conn, err := dbus.Connect(k.BusAddress)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	svc := conn.Object(ssName, ssPath)
	var coll dbus.ObjectPath
	if err := svc.Call(ssService+".ReadAlias", 0, "default").Store(&coll); err != nil {
		t.Fatal(err)
	}
	var locked []dbus.ObjectPath
	var prompt dbus.ObjectPath
	if err := svc.Call(ssService+".Lock", 0, []dbus.ObjectPath{coll}).Store(&locked, &prompt); err != nil {
		t.Fatal(err)
	}
	// Listing hosts must not unlock (or prompt): a locked item still counts.
	if !kc.Has("h-00000002") || kc.Has("h-00000003") {
		t.Fatal("Has on a locked keyring")
	}
	old := PromptTimeout
	PromptTimeout = 2 * time.Second
	defer func() { PromptTimeout = old }()
	secret, err := kc.Get("h-00000002")
	if secret != "" {
		t.Fatal("a locked keyring gave a secret")
	}
	checkUnavailable(t, err, "locked")
	t.Log(err)
	if strings.Contains(err.Error(), "before-lock") {
		t.Fatal("the error carries the secret")
	}
}
