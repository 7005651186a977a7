package testbed

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// avahiLock serializes avahi-daemon across test processes on one machine:
// only one can run at a time, because it keeps /run/avahi-daemon/pid.
// Tests that need Avahi take this lock (flock, released at cleanup or when
// the process dies), so parallel packages wait rather than collide.
const avahiLock = "/tmp/dvv-testbed-avahi.lock"

// Avahi is an avahi-daemon on a private system bus, publishing on loopback.
type Avahi struct {
	Dir        string
	BusAddress string // DBUS_SYSTEM_BUS_ADDRESS
	Daemon     *Proc  // the running avahi-daemon (replaced by StartDaemon)
}

// StartAvahi starts a private system bus and avahi-daemon on it (IPv4, lo
// only, no wide-area, no workstation record) and sets
// DBUS_SYSTEM_BUS_ADDRESS for the test with t.Setenv, so tests using it
// cannot be parallel.
func StartAvahi(t testing.TB) *Avahi {
	t.Helper()
	Need(t, "dbus-daemon", "avahi-daemon")
	lockAvahi(t)
	dir := t.TempDir()
	a := &Avahi{Dir: dir}
	sock := filepath.Join(dir, "system_bus")
	a.BusAddress = "unix:path=" + sock
	Start(t, "dbus-system", exec.Command("dbus-daemon", "--config-file=/usr/share/dbus-1/system.conf",
		"--nofork", "--nopidfile", "--address="+a.BusAddress))
	waitBus(t, a.BusAddress, 5*time.Second)
	t.Setenv("DBUS_SYSTEM_BUS_ADDRESS", a.BusAddress)

	conf := filepath.Join(dir, "avahi-daemon.conf")
	if err := os.WriteFile(conf, []byte("[server]\nuse-ipv4=yes\nuse-ipv6=no\nallow-interfaces=lo\nratelimit-burst=1000\n"+
		"[wide-area]\nenable-wide-area=no\n[publish]\npublish-workstation=no\npublish-hinfo=no\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a.StartDaemon(t, conf)
	return a
}

// StartDaemon starts avahi-daemon on the bus (again, after StopDaemon).
func (a *Avahi) StartDaemon(t testing.TB, conf string) *Proc {
	t.Helper()
	if conf == "" {
		conf = filepath.Join(a.Dir, "avahi-daemon.conf")
	}
	cmd := exec.Command("avahi-daemon", "--no-drop-root", "--no-chroot", "--no-rlimits", "-f", conf)
	cmd.Env = a.Env()
	p := Start(t, "avahi-daemon", cmd)
	waitBusName(t, a.BusAddress, "org.freedesktop.Avahi", 10*time.Second)
	a.Daemon = p
	return p
}

// Env is os.Environ with this bus as the system bus.
func (a *Avahi) Env() []string {
	return append(os.Environ(), "DBUS_SYSTEM_BUS_ADDRESS="+a.BusAddress)
}

// Publish announces a service with avahi-publish until the returned
// process is killed (or the test ends).
func (a *Avahi) Publish(t testing.TB, name, serviceType string, port int) *Proc {
	t.Helper()
	Need(t, "avahi-publish")
	cmd := exec.Command("avahi-publish", "-s", name, serviceType, strconv.Itoa(port))
	cmd.Env = a.Env()
	return Start(t, "avahi-publish-"+name, cmd)
}

func lockAvahi(t testing.TB) {
	t.Helper()
	f, err := os.OpenFile(avahiLock, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatalf("avahi test lock: %v", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		t.Fatalf("avahi test lock: %v", err)
	}
	t.Cleanup(func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	})
	// A system avahi-daemon would hold the pid file; ours could not start.
	if out, err := exec.Command("avahi-daemon", "--check").CombinedOutput(); err == nil {
		t.Fatalf("an avahi-daemon not started by the tests is running (avahi-daemon --check: %s); stop it to run discovery tests", out)
	}
}
