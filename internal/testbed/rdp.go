package testbed

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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
	return startShadowOn(t, d, o)
}

func startShadowOn(t testing.TB, d *Display, o ShadowOptions) *RDP {
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
		out, err := exec.Command("winpr-hash", "-u", o.User, "-p", o.Password, "-f", "sam").Output()
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
	cmd := d.Command("freerdp-shadow-cli", args...)
	cmd.Env = append(cmd.Env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	r.Server = Start(t, "freerdp-shadow", cmd)
	WaitTCP(t, r.Addr, 15*time.Second)
	return r
}
