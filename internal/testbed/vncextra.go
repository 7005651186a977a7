package testbed

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// SelfSignedCert writes a fresh self-signed certificate and key for
// 127.0.0.1 into dir and returns their paths and the certificate's DER.
func SelfSignedCert(t testing.TB, dir string) (certPath, keyPath string, der []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "dvv test VNC server"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err = x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPath, keyPath = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certPath, keyPath, der
}

// StartXvncX509 starts Xvnc offering only the given VeNCrypt security
// types (e.g. "X509Vnc", "X509Plain", "TLSVnc") with a fresh self-signed
// certificate; the VNC password (for the *Vnc types) is password.
func StartXvncX509(t testing.TB, securityTypes, password string, extra ...string) (*VNC, []byte) {
	t.Helper()
	dir := t.TempDir()
	cert, key, der := SelfSignedCert(t, dir)
	args := append([]string{"-SecurityTypes", securityTypes, "-X509Cert", cert, "-X509Key", key}, extra...)
	v := StartXvnc(t, XvncOptions{Password: password, Extra: args})
	return v, der
}

// QEMUVNC is QEMU's own RFB server.
type QEMUVNC struct {
	VNC
	WSPort int // its WebSocket listener
}

// StartQEMUVNC starts QEMU with a VNC server (password auth unless
// password is "") and its
// WebSocket listener. With screen, a PC with a VGA card shows its BIOS;
// otherwise the machine is empty and the screen blank.
func StartQEMUVNC(t testing.TB, password string, screen bool) *QEMUVNC {
	t.Helper()
	Need(t, "qemu-system-x86_64")
	display := freeVNCDisplay(t)
	ws := FreePort(t)
	machine := []string{"-machine", "none"}
	if screen {
		machine = []string{"-machine", "pc", "-accel", "tcg", "-m", "64", "-nodefaults", "-vga", "std"}
	}
	// The input trace is the server's own record of the keys it received.
	args := append(machine, "-display", "none", "-monitor", "none", "-serial", "none", "-trace", "input_event_key_qcode",
		"-vnc", fmt.Sprintf("127.0.0.1:%d,websocket=127.0.0.1:%d", display, ws))
	if password != "" { // "" serves without authentication
		args[len(args)-1] += ",password-secret=vncpw"
		args = append(args, "-object", "secret,id=vncpw,data="+password)
	}
	p := Start(t, "qemu", exec.Command("qemu-system-x86_64", args...))
	port := 5900 + display
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	WaitTCP(t, addr, 20*time.Second)
	return &QEMUVNC{VNC: VNC{Display: &Display{Num: -1, Dir: t.TempDir(), Proc: p}, Port: port, Addr: addr,
		Password: password, Server: p}, WSPort: ws}
}

// QKey is one key event as QEMU's input layer received it.
type QKey struct {
	QCode string // QEMU's key name: "shift", "a", "ctrl", "1", "tab"
	Down  bool
}

var qemuKeyTrace = regexp.MustCompile(`input_event_key_qcode con -?\d+, (?:key )?qcode (\S+), down (\d)`)

// KeyEvents returns the key events QEMU's input layer traced so far.
func (q *QEMUVNC) KeyEvents() []QKey {
	b, _ := os.ReadFile(q.Server.Log)
	var out []QKey
	for _, m := range qemuKeyTrace.FindAllStringSubmatch(string(b), -1) {
		out = append(out, QKey{QCode: m[1], Down: m[2] == "1"})
	}
	return out
}

// freeVNCDisplay finds N such that port 5900+N is free (QEMU takes a
// display number, not a port).
func freeVNCDisplay(t testing.TB) int {
	t.Helper()
	for i := 0; i < 200; i++ {
		n := 100 + int(time.Now().UnixNano()%3000) + i
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(5900+n))
		if err == nil {
			l.Close()
			return n
		}
	}
	t.Fatal("no free VNC display number")
	return 0
}

// StartWebsockify puts websockify in front of target and returns the port
// of its WebSocket listener.
func StartWebsockify(t testing.TB, target string) int {
	t.Helper()
	Need(t, "websockify")
	port := FreePort(t)
	Start(t, "websockify", exec.Command("websockify", fmt.Sprintf("127.0.0.1:%d", port), target))
	WaitTCP(t, fmt.Sprintf("127.0.0.1:%d", port), 15*time.Second)
	return port
}

// StartWebsockifyTLS is StartWebsockify serving wss:// only, with a fresh
// self-signed certificate whose DER it returns.
func StartWebsockifyTLS(t testing.TB, target string) (int, []byte) {
	t.Helper()
	Need(t, "websockify")
	cert, key, der := SelfSignedCert(t, t.TempDir())
	port := FreePort(t)
	Start(t, "websockify", exec.Command("websockify", "--ssl-only", "--cert", cert, "--key", key,
		fmt.Sprintf("127.0.0.1:%d", port), target))
	WaitTCP(t, fmt.Sprintf("127.0.0.1:%d", port), 15*time.Second)
	return port, der
}
