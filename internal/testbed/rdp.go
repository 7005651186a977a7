package testbed

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// RDP is an RDP server in front of an X display.
type RDP struct {
	*Display
	Port     int
	Addr     string // 127.0.0.1:port
	User     string // "" when the server needs no credentials
	Password string
	Server   *Proc
}

// ShadowOptions configure StartShadow.
type ShadowOptions struct {
	Width, Height int // Xvfb size; default 1024x768
	// NLA starts the server with +auth /sec:nla and a SAM file holding
	// User/Password (defaults rdpuser / Secret123!).
	NLA            bool
	User, Password string
	Domain         string   // written into the SAM entry when set
	Extra          []string // more freerdp-shadow-cli arguments (e.g. /sec:rdp)
}

// StartShadow starts an Xvfb display and FreeRDP's shadow server sharing it.
// The server keeps its generated TLS certificate under a private HOME.
func StartShadow(t testing.TB, o ShadowOptions) *RDP {
	t.Helper()
	Need(t, "freerdp-shadow-cli")
	if o.Width == 0 {
		o.Width, o.Height = 1024, 768
	}
	d := StartXvfb(t, o.Width, o.Height)
	return StartShadowOn(t, d, o)
}

// StartShadowOn starts FreeRDP's shadow server on an existing display
// (e.g. Xvnc's, which can change size with xrandr where Xvfb cannot).
func StartShadowOn(t testing.TB, d *Display, o ShadowOptions) *RDP {
	t.Helper()
	port := FreePort(t)
	home := filepath.Join(d.Dir, "shadow-home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	args := []string{"/bind-address:127.0.0.1", "/port:" + strconv.Itoa(port)}
	r := &RDP{Display: d, Port: port, Addr: fmt.Sprintf("127.0.0.1:%d", port)}
	if o.NLA {
		Need(t, "winpr-hash")
		if o.User == "" {
			o.User, o.Password = "rdpuser", "Secret123!"
		}
		hashArgs := []string{"-u", o.User, "-p", o.Password, "-f", "sam"}
		if o.Domain != "" {
			hashArgs = append(hashArgs, "-d", o.Domain)
		}
		out, err := exec.Command("winpr-hash", hashArgs...).Output()
		if err != nil {
			t.Fatalf("winpr-hash: %v", err)
		}
		sam := filepath.Join(d.Dir, "sam")
		if err := os.WriteFile(sam, out, 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "+auth", "/sec:nla", "/sam-file:"+sam)
		r.User, r.Password = o.User, o.Password
	} else {
		args = append(args, "-auth")
	}
	args = append(args, o.Extra...)
	cmd := d.Command("freerdp-shadow-cli", args...)
	cmd.Env = append(cmd.Env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	r.Server = Start(t, "freerdp-shadow", cmd)
	WaitTCP(t, r.Addr, 15*time.Second)
	return r
}

// XrdpOptions configure StartXrdp.
type XrdpOptions struct {
	// User and Password of the local account sessions log in as; created
	// (useradd) when missing. Defaults dvvrdp / Dvv-rdp-42.
	User, Password string
	// XSession is the account's ~/.xsession; default paints the root
	// window and keeps the session open.
	XSession string
	// KeepSessions keeps a session running after its client disconnects,
	// so the next login reconnects to it (default: end it).
	KeepSessions bool
}

// xrdpLock serialises xrdp servers machine-wide: xrdp always reaches its
// session manager on the port named in /etc/xrdp/sesman.ini (3350).
const xrdpLock = "/tmp/dvv-testbed-xrdp.lock"

// StartXrdp starts xrdp and xrdp-sesman on 127.0.0.1 with the Xvnc back end
// and a local account. The session's X display exists only once a client
// has logged in: call WaitDisplay after connecting. It holds a machine-wide
// lock until the test ends, so call it at most once per test (use subtests
// for more).
func StartXrdp(t testing.TB, o XrdpOptions) *RDP {
	t.Helper()
	Need(t, "xrdp", "xrdp-sesman", "Xvnc", "useradd", "chpasswd")
	NeedRoot(t, "StartXrdp (it creates a local account)")
	if o.User == "" {
		o.User, o.Password = "dvvrdp", "Dvv-rdp-42"
	}
	lock, err := os.OpenFile(xrdpLock, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lock.Close() })
	ensureAccount(t, o)

	dir := t.TempDir()
	port := FreePort(t)
	display := freeDisplay(t)
	xrdpIni := rewriteIni(t, "/etc/xrdp/xrdp.ini", map[string]string{
		"port=3389":         "port=tcp://127.0.0.1:" + strconv.Itoa(port),
		"fork=true":         "fork=false",
		"autorun=":          "autorun=Xvnc",
		"LogFile=xrdp.log":  "LogFile=" + filepath.Join(dir, "xrdp.log"),
		"EnableSyslog=true": "EnableSyslog=false",
		"LogLevel=INFO":     "LogLevel=INFO",
	})
	sesIni := rewriteIni(t, "/etc/xrdp/sesman.ini", map[string]string{
		"LogFile=xrdp-sesman.log": "LogFile=" + filepath.Join(dir, "sesman.log"),
		"EnableSyslog=true":       "EnableSyslog=false",
		"X11DisplayOffset=10":     "X11DisplayOffset=" + strconv.Itoa(display),
		"KillDisconnected=false":  "KillDisconnected=" + strconv.FormatBool(!o.KeepSessions),
		// -ac lets the test read the session's display as ground truth.
		"param=-localhost": "param=-localhost\nparam=-ac",
	})
	xi, si := filepath.Join(dir, "xrdp.ini"), filepath.Join(dir, "sesman.ini")
	if err := os.WriteFile(xi, []byte(xrdpIni), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(si, []byte(sesIni), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("sh", "/usr/share/xrdp/socksetup").CombinedOutput(); err != nil {
		t.Fatalf("xrdp socksetup: %v\n%s", err, out)
	}
	ses := Start(t, "xrdp-sesman", exec.Command("xrdp-sesman", "-n", "-c", si))
	t.Cleanup(func() { killDisplayProcs(display) })
	srv := Start(t, "xrdp", exec.Command("xrdp", "-n", "-c", xi))
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	WaitTCP(t, addr, 15*time.Second)
	waitSesman(t, 10*time.Second)
	d := &Display{Num: display, Dir: dir, Proc: ses}
	return &RDP{Display: d, Port: port, Addr: addr, User: o.User, Password: o.Password, Server: srv}
}

// WaitDisplay waits until the session's X server (started by the session
// manager after a login) accepts clients.
func (r *RDP) WaitDisplay(t testing.TB) {
	t.Helper()
	sock := fmt.Sprintf("/tmp/.X11-unix/X%d", r.Num)
	WaitFile(t, sock, 20*time.Second)
	Eventually(t, 20*time.Second, "session X display", func() bool {
		return r.Command("xdpyinfo").Run() == nil || r.Command("xset", "q").Run() == nil
	})
}

func ensureAccount(t testing.TB, o XrdpOptions) {
	t.Helper()
	if exec.Command("id", o.User).Run() != nil {
		if out, err := exec.Command("useradd", "-m", "-s", "/bin/sh", o.User).CombinedOutput(); err != nil {
			t.Fatalf("useradd %s: %v\n%s", o.User, err, out)
		}
	}
	cmd := exec.Command("chpasswd")
	cmd.Stdin = strings.NewReader(o.User + ":" + o.Password + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chpasswd: %v\n%s", err, out)
	}
	home := "/home/" + o.User
	xs := o.XSession
	if xs == "" {
		xs = "#!/bin/sh\nxsetroot -solid '#336699'\nexec sleep 100000\n"
	}
	path := filepath.Join(home, ".xsession")
	if err := os.WriteFile(path, []byte(xs), 0o755); err != nil {
		t.Fatal(err)
	}
	exec.Command("chown", o.User, path).Run()
}

func rewriteIni(t testing.TB, path string, repl map[string]string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if r, ok := repl[strings.TrimSpace(l)]; ok {
			lines[i] = r
		}
	}
	return strings.Join(lines, "\n")
}

// freeDisplay picks an X display number in 60..99 with no server.
func freeDisplay(t testing.TB) int {
	t.Helper()
	for n := 60 + os.Getpid()%20; n < 100; n++ {
		_, e1 := os.Stat(fmt.Sprintf("/tmp/.X11-unix/X%d", n))
		_, e2 := os.Stat(fmt.Sprintf("/tmp/.X%d-lock", n))
		if os.IsNotExist(e1) && os.IsNotExist(e2) {
			return n
		}
	}
	t.Fatal("no free X display number in 60..99")
	return 0
}

func waitSesman(t testing.TB, timeout time.Duration) {
	t.Helper()
	Eventually(t, timeout, "xrdp-sesman on port 3350", func() bool {
		for _, a := range []string{"127.0.0.1:3350", "[::1]:3350"} {
			if c, err := net.DialTimeout("tcp", a, 200*time.Millisecond); err == nil {
				c.Close()
				return true
			}
		}
		return false
	})
}

// killDisplayProcs ends the session processes our session manager started
// for display n (they leave its process group): the X server and every
// process running with DISPLAY=:n.
func killDisplayProcs(n int) {
	want := fmt.Sprintf("DISPLAY=:%d", n)
	xv := fmt.Sprintf("Xvnc\x00:%d\x00", n)
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		hit := strings.HasPrefix(string(cmdline), xv)
		for _, kv := range strings.Split(string(env), "\x00") {
			if kv == want {
				hit = true
			}
		}
		if hit {
			syscall.Kill(pid, syscall.SIGTERM)
		}
	}
}
