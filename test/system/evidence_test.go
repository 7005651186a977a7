package system_test

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/redact"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TestDoctorAndReport drives `dvv doctor` and `dvv report` against a real
// keyring, a password-protected Xvnc opened by its saved host, and an sshd
// whose host key is not trusted; then takes the keyring away.
func TestDoctorAndReport(t *testing.T) {
	kr := testbed.StartKeyring(t) // sets env: cannot be parallel
	const saved = "Rp4v8mWq"      // VNC passwords are at most 8 characters
	const typed = "typed-Pa55word-77"
	x := testbed.StartXvnc(t, testbed.XvncOptions{Width: 640, Height: 480, Password: saved})
	sshd := testbed.StartSSHD(t, testbed.SSHDUnknownHost())
	d := startDaemonIn(t, kr.BusAddress, sshd.Home)

	if r := d.run("shell-a", saved+"\n", nil, "hosts", "add", "lab", "--address", "127.0.0.1", "--port",
		strconv.Itoa(x.Port), "--protocol", "vnc", "--password-stdin"); r.code != 0 {
		t.Fatal(r)
	}
	d.must("hosts", "add", "box", "--address", "127.0.0.1", "--port", strconv.Itoa(sshd.Port), "--protocol", "ssh", "--user", sshd.User)
	limb := strings.TrimSpace(d.must("open", "lab", "--perceive").stdout)
	d.must("wait", limb, "--until", "connected", "--timeout-ms", "15000")
	d.must("control", "acquire", limb)
	typedFile := x.CatTerm(t)
	testbed.Eventually(t, 20*time.Second, "typing to pass the fence", func() bool {
		d.must("screen", limb, "--out", filepath.Join(t.TempDir(), "s.png"))
		r := d.dvv("type", limb, typed+"\n")
		if r.code != 0 && r.code != wire.ExitFence {
			t.Fatal(r)
		}
		return r.code == 0
	})
	testbed.Eventually(t, 10*time.Second, "the typed text in the xterm's file", func() bool {
		b, _ := os.ReadFile(typedFile)
		return strings.Contains(string(b), typed)
	})

	// doctor: the keychain answers, lab is reachable, box's key is unknown.
	r := d.dvv("doctor", "--json")
	checks := doctorChecks(t, r)
	if r.code != 12 {
		t.Errorf("doctor with an untrusted host: want exit 12, got %v", r)
	}
	want := map[string]string{"socket": wire.HealthOK, "dvvd": wire.HealthOK, "version": wire.HealthOK,
		"keychain": wire.HealthOK, "host lab": wire.HealthOK, "host box": wire.HealthFail}
	for name, st := range want {
		if c, ok := checks[name]; !ok || c.Status != st {
			t.Errorf("doctor check %q = %+v, want %s\n%v", name, c, st, r)
		}
	}
	if c := checks["host box"]; !strings.Contains(c.Detail, "not trusted") || !strings.Contains(c.Fix, fmt.Sprintf("dvv hosts trust 127.0.0.1:%d --fingerprint SHA256:", sshd.Port)) {
		t.Errorf("host box: %+v", c)
	}
	if h := d.dvv("doctor"); !strings.Contains(h.stdout, "fix: Check the fingerprint") {
		t.Errorf("human doctor output: %v", h)
	}

	// report: a bundle that names the limb and carries dvvd's log, with
	// neither the saved nor the typed password anywhere in it.
	out := filepath.Join(t.TempDir(), "bug.tar.gz")
	if r := d.must("report", "--out", out); !strings.Contains(r.stdout, out) {
		t.Errorf("report: %v", r)
	}
	if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("bundle %v mode %v", err, st)
	}
	files := untar(t, out)
	for _, name := range []string{"versions.json", "doctor.json", "daemon.json", "hosts.json", "limbs.json",
		"limbs/" + limb + "/status.json", "limbs/" + limb + "/signals.json", "limbs/" + limb + "/history.json", "SUMMARY.txt"} {
		if _, ok := files["dvv-report/"+name]; !ok {
			t.Errorf("bundle lacks %s (has %v)", name, keys(files))
		}
	}
	var rep wire.DaemonReport
	if err := json.Unmarshal(files["dvv-report/daemon.json"], &rep); err != nil || len(rep.Log) == 0 || rep.Config["id"] != d.id {
		t.Errorf("daemon.json: %v %+v", err, rep)
	}
	if !strings.Contains(string(files["dvv-report/history.json"])+string(files["dvv-report/limbs/"+limb+"/history.json"]), `"type"`) {
		t.Errorf("history lacks the type op: %s", files["dvv-report/limbs/"+limb+"/history.json"])
	}
	scan := redact.New(saved, typed)
	for name, b := range files {
		if _, f := scan.Scrub(b); len(f) > 0 {
			t.Errorf("%s carries a secret: %+v", name, f)
		}
	}

	// A session where no keyring answers (the bus here would start
	// gnome-keyring again on demand, as a desktop session does, so the
	// keyring-less dvvd gets a bus that can start nothing): doctor says so
	// and how to fix it.
	bare := startDaemon(t, testbed.StartBareSessionBus(t))
	r = bare.dvv("doctor", "--json")
	if c := doctorChecks(t, r)["keychain"]; c.Status != wire.HealthFail || !strings.Contains(c.Fix, "gnome-keyring-daemon") || r.code != 12 {
		t.Errorf("doctor without a keyring: %+v\n%v", c, r)
	}
}

func doctorChecks(t *testing.T, r result) map[string]wire.HealthCheck {
	t.Helper()
	var out struct {
		Result string             `json:"result"`
		Checks []wire.HealthCheck `json:"checks"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Result != "doctor" {
		t.Fatalf("doctor --json: %v\n%v", err, r)
	}
	m := map[string]wire.HealthCheck{}
	for _, c := range out.Checks {
		m[c.Name] = c
	}
	return m
}

// untar reads every file of a .tar.gz, decompressed.
func untar(t *testing.T, path string) map[string][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	files := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = b
	}
}

func keys(m map[string][]byte) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
