package testbed

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// Keyring is a gnome-keyring Secret Service on a private session bus.
type Keyring struct {
	Dir        string // everything the keyring and its bus keep lives here
	Home       string // HOME given to the keyring (and to the test)
	RuntimeDir string // XDG_RUNTIME_DIR
	BusAddress string // DBUS_SESSION_BUS_ADDRESS
}

// StartKeyring starts a private D-Bus session bus and gnome-keyring-daemon
// (secrets component, unlocked with a throwaway password) on it, and points
// the test at them with t.Setenv: DBUS_SESSION_BUS_ADDRESS, HOME,
// XDG_RUNTIME_DIR and XDG_CONFIG_HOME (under the temporary home). Tests
// using it cannot be parallel (t.Setenv forbids it).
func StartKeyring(t testing.TB) *Keyring {
	t.Helper()
	Need(t, "dbus-daemon", "gnome-keyring-daemon")
	dir := t.TempDir()
	k := &Keyring{Dir: dir, Home: filepath.Join(dir, "home"), RuntimeDir: filepath.Join(dir, "run")}
	for _, d := range []string{k.Home, k.RuntimeDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	sock := filepath.Join(dir, "bus")
	k.BusAddress = "unix:path=" + sock
	Start(t, "dbus-session", exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile", "--address="+k.BusAddress))
	waitBus(t, k.BusAddress, 5*time.Second)

	gk := exec.Command("gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets")
	gk.Env = k.env()
	gk.Stdin = strings.NewReader("testbed-keyring-password")
	Start(t, "gnome-keyring", gk)
	waitBusName(t, k.BusAddress, "org.freedesktop.secrets", 10*time.Second)

	t.Setenv("DBUS_SESSION_BUS_ADDRESS", k.BusAddress)
	t.Setenv("HOME", k.Home)
	t.Setenv("XDG_RUNTIME_DIR", k.RuntimeDir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(k.Home, ".config"))
	return k
}

func (k *Keyring) env() []string {
	env := []string{}
	for _, e := range os.Environ() {
		switch strings.SplitN(e, "=", 2)[0] {
		case "DBUS_SESSION_BUS_ADDRESS", "HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME":
			continue
		}
		env = append(env, e)
	}
	return append(env, "DBUS_SESSION_BUS_ADDRESS="+k.BusAddress, "HOME="+k.Home, "XDG_RUNTIME_DIR="+k.RuntimeDir)
}

// SecretTool runs libsecret's secret-tool against this keyring (ground
// truth from the other side of the bus) and returns its stdout.
func (k *Keyring) SecretTool(t testing.TB, stdin string, args ...string) (string, error) {
	t.Helper()
	Need(t, "secret-tool")
	cmd := exec.Command("secret-tool", args...)
	cmd.Env = k.env()
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	return string(out), err
}

// waitBusName waits until a well-known name has an owner on the bus.
func waitBusName(t testing.TB, address, name string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if conn, err := dbus.Connect(address); err == nil {
			var has bool
			err = conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, name).Store(&has)
			conn.Close()
			if err == nil && has {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear on the bus %s within %v", name, address, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// StartBareSessionBus starts a private session bus that can activate no
// services (so nothing answers as a Secret Service) and returns its address.
func StartBareSessionBus(t testing.TB) string {
	t.Helper()
	Need(t, "dbus-daemon")
	dir := t.TempDir()
	sock := filepath.Join(dir, "bus")
	conf := filepath.Join(dir, "bus.conf")
	if err := os.WriteFile(conf, []byte(`<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=`+sock+`</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`), 0o600); err != nil {
		t.Fatal(err)
	}
	Start(t, "dbus-bare", exec.Command("dbus-daemon", "--nofork", "--nopidfile", "--config-file="+conf))
	waitBus(t, "unix:path="+sock, 5*time.Second)
	return "unix:path=" + sock
}

// waitBus waits until a bus accepts a client (its socket file appears a
// moment before it listens).
func waitBus(t testing.TB, address string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		conn, err := dbus.Connect(address)
		if err == nil {
			conn.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the bus at %s did not answer within %v: %v", address, timeout, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
