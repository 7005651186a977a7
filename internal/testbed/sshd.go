package testbed

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SSHD is an OpenSSH server on 127.0.0.1 and a client HOME prepared for it.
type SSHD struct {
	Host string // 127.0.0.1
	Port int
	Addr string // host:port
	User string // the local user the client logs in as
	Dir  string // server files: host keys, config, authorized keys

	// Home is a client home directory: Home/.ssh/id_ed25519 is ClientKey,
	// Home/.ssh/known_hosts trusts the server, Home/.ssh/config is empty.
	Home      string
	ClientKey string // private key authorized on the server (kept outside Home too)
	HostKey   string // the server's ed25519 host private key
	HostPub   string // "ssh-ed25519 AAAA…" line of the host key

	// RemoteHome is $HOME in the server's sessions (SetEnv), kept empty
	// so no start-up file of the real user runs.
	RemoteHome string

	Proc *Proc
}

// SSHDOption changes how StartSSHD sets things up.
type SSHDOption func(*sshdSetup)

type sshdSetup struct {
	extraConfig []string
	noKnownHost bool
}

// SSHDConfig adds sshd_config lines.
func SSHDConfig(lines ...string) SSHDOption {
	return func(s *sshdSetup) { s.extraConfig = append(s.extraConfig, lines...) }
}

// SSHDUnknownHost leaves known_hosts empty so the host key is not trusted.
func SSHDUnknownHost() SSHDOption { return func(s *sshdSetup) { s.noKnownHost = true } }

// StartSSHD starts sshd -D on a free port with an ed25519 host key and one
// authorized client key.
func StartSSHD(t testing.TB, opts ...SSHDOption) *SSHD {
	t.Helper()
	Need(t, "/usr/sbin/sshd", "ssh-keygen")
	var setup sshdSetup
	for _, o := range opts {
		o(&setup)
	}
	dir := t.TempDir()
	if os.Geteuid() == 0 {
		os.MkdirAll("/run/sshd", 0o755) // privilege separation directory
	}
	s := &SSHD{Host: "127.0.0.1", Dir: dir, Home: filepath.Join(dir, "home"), RemoteHome: filepath.Join(dir, "remote-home")}
	if err := os.MkdirAll(s.RemoteHome, 0o755); err != nil {
		t.Fatal(err)
	}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	s.User = u.Username
	s.HostKey = filepath.Join(dir, "host_ed25519")
	s.ClientKey = filepath.Join(dir, "client_ed25519")
	Keygen(t, s.HostKey, "ed25519")
	Keygen(t, s.ClientKey, "ed25519")
	pub, err := os.ReadFile(s.HostKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	s.HostPub = strings.Join(strings.Fields(string(pub))[:2], " ")
	clientPub, err := os.ReadFile(s.ClientKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	ak := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(ak, clientPub, 0o644); err != nil {
		t.Fatal(err)
	}
	s.Port = FreePort(t)
	s.Addr = fmt.Sprintf("127.0.0.1:%d", s.Port)
	cfg := []string{
		"ListenAddress 127.0.0.1",
		"Port " + strconv.Itoa(s.Port),
		"HostKey " + s.HostKey,
		"PidFile " + filepath.Join(dir, "sshd.pid"),
		"AuthorizedKeysFile " + ak,
		"PermitRootLogin prohibit-password",
		"UsePAM no",
		"StrictModes no",
		"UseDNS no",
		"PrintMotd no",
		"PrintLastLog no",
		"MaxSessions 64",
		"MaxStartups 64",
		"LogLevel ERROR",
		"Subsystem sftp internal-sftp",
		// Shells read their start-up files from this empty directory, not
		// from the real home of the user, whose rc files may be slow or
		// contended; the login directory stays the user's real home.
		"SetEnv HOME=" + s.RemoteHome,
	}
	cfg = append(setup.extraConfig, cfg...) // first value wins in sshd_config
	cfgPath := filepath.Join(dir, "sshd_config")
	if err := os.WriteFile(cfgPath, []byte(strings.Join(cfg, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.Proc = Start(t, "sshd", exec.Command("/usr/sbin/sshd", "-D", "-e", "-f", cfgPath))
	t.Cleanup(s.killSessions)
	WaitTCP(t, s.Addr, 5*time.Second)

	sshDir := filepath.Join(s.Home, ".ssh")
	if err := os.MkdirAll(sshDir, 0o700); err != nil {
		t.Fatal(err)
	}
	copyFile(t, s.ClientKey, filepath.Join(sshDir, "id_ed25519"), 0o600)
	copyFile(t, s.ClientKey+".pub", filepath.Join(sshDir, "id_ed25519.pub"), 0o644)
	kh := ""
	if !setup.noKnownHost {
		kh = s.KnownHostsLine(s.HostPub)
	}
	if err := os.WriteFile(filepath.Join(sshDir, "known_hosts"), []byte(kh), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sshDir, "config"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return s
}

// KnownHostsLine is a known_hosts line naming this server with pub.
func (s *SSHD) KnownHostsLine(pub string) string {
	return fmt.Sprintf("[%s]:%d %s\n", s.Host, s.Port, pub)
}

// KillAll ends the listener and every connection it forked (each of those
// calls setsid, so the process group alone does not reach them).
func (s *SSHD) KillAll() {
	pid := s.Proc.Cmd.Process.Pid
	pids := descendants(pid)
	syscall.Kill(-pid, syscall.SIGKILL)
	for _, p := range pids {
		syscall.Kill(p, syscall.SIGKILL)
	}
	// Start's goroutine reaps the listener; wait until it is gone.
	for i := 0; i < 200 && syscall.Kill(pid, 0) == nil; i++ {
		time.Sleep(10 * time.Millisecond)
	}
}

// KillSessions ends every connection sshd forked and keeps it listening,
// so a client's session drops and it can connect again.
func (s *SSHD) KillSessions() { s.killSessions() }

func (s *SSHD) killSessions() {
	for _, p := range descendants(s.Proc.Cmd.Process.Pid) {
		syscall.Kill(p, syscall.SIGKILL)
	}
}

// descendants lists the PIDs below pid, read from /proc.
func descendants(pid int) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The command name may hold spaces: the fields after its ')' are fixed.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		children[pp] = append(children[pp], p)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// Keygen writes a key pair without a passphrase at path (and path.pub).
func Keygen(t testing.TB, path, kind string) {
	t.Helper()
	out, err := exec.Command("ssh-keygen", "-q", "-t", kind, "-N", "", "-C", "dvv-test", "-f", path).CombinedOutput()
	if err != nil {
		t.Fatalf("ssh-keygen: %v: %s", err, out)
	}
}

// StartSSHAgent starts ssh-agent on a socket of its own, loads keys into
// it, and returns the socket path for SSH_AUTH_SOCK.
func StartSSHAgent(t testing.TB, keys ...string) string {
	t.Helper()
	Need(t, "ssh-agent", "ssh-add")
	sock := filepath.Join(t.TempDir(), "agent.sock")
	Start(t, "ssh-agent", exec.Command("ssh-agent", "-D", "-a", sock))
	// The socket file appears at bind(), a moment before listen(): wait
	// until the agent answers.
	Eventually(t, 10*time.Second, "ssh-agent to listen", func() bool {
		c, err := net.Dial("unix", sock)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	for _, k := range keys {
		cmd := exec.Command("ssh-add", "-q", k)
		cmd.Env = append(os.Environ(), "SSH_AUTH_SOCK="+sock)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("ssh-add %s: %v: %s", k, err, out)
		}
	}
	return sock
}

func copyFile(t testing.TB, from, to string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, mode); err != nil {
		t.Fatal(err)
	}
}

// AppendLines appends text lines to a file.
func AppendLines(t testing.TB, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for _, l := range lines {
		w.WriteString(l + "\n")
	}
	w.Flush()
	f.Close()
}

// PasswordUser creates a local account with a password for password
// authentication tests and deletes it at cleanup. It needs root; other
// users skip (or fail under DVV_REQUIRE_SERVERS=1).
func PasswordUser(t testing.TB) (name, password string) {
	t.Helper()
	Need(t, "useradd", "userdel", "chpasswd")
	NeedRoot(t, "creating a password user")
	name = fmt.Sprintf("dvvpw%d", time.Now().UnixNano()%1_000_000_000)
	password = fmt.Sprintf("Pw-%d-x", time.Now().UnixNano())
	if out, err := exec.Command("useradd", "-M", "-d", "/nonexistent", "-s", "/bin/sh", name).CombinedOutput(); err != nil {
		t.Fatalf("useradd: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("userdel", name).Run() })
	cmd := exec.Command("chpasswd")
	cmd.Stdin = strings.NewReader(name + ":" + password + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chpasswd: %v %s", err, out)
	}
	return name, password
}
