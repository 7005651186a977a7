package testbed

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// EchoBootSector is a 512-byte PC boot sector that echoes every key typed
// on the VGA text screen: xor bx,bx; l: mov ah,0; int 16h; mov ah,0eh;
// int 10h; jmp l, then the 55 AA signature.
func EchoBootSector() []byte {
	code := []byte{0x31, 0xdb, 0xb4, 0x00, 0xcd, 0x16, 0xb4, 0x0e, 0xcd, 0x10, 0xeb, 0xf6}
	s := make([]byte, 512)
	copy(s, code)
	s[510], s[511] = 0x55, 0xaa
	return s
}

// EchoDisk writes the echoing boot sector as a qcow2 disk (qemu-img, from
// qemu-utils) in dir and returns its path. qcow2 holds internal
// snapshots, memory included.
func EchoDisk(t testing.TB, dir string) string {
	t.Helper()
	Need(t, "qemu-img")
	raw := filepath.Join(dir, "boot.img")
	if err := os.WriteFile(raw, EchoBootSector(), 0o644); err != nil {
		t.Fatal(err)
	}
	disk := filepath.Join(dir, "boot.qcow2")
	if out, err := exec.Command("qemu-img", "convert", "-O", "qcow2", raw, disk).CombinedOutput(); err != nil {
		t.Fatalf("qemu-img: %v: %s", err, out)
	}
	return disk
}

// QEMUMachine is a QEMU PC (TCG) booting the echo disk, with QMP on a Unix
// socket and its VGA screen on a VNC server.
type QEMUMachine struct {
	VNC
	QMP  string // the QMP socket's path
	Disk string
}

// StartQEMUMachine boots the echo disk with memMiB of memory. QEMU stays
// after the guest powers off (-no-shutdown), as a supervised VM would.
func StartQEMUMachine(t testing.TB, memMiB int) *QEMUMachine {
	t.Helper()
	Need(t, "qemu-system-x86_64")
	dir := t.TempDir()
	disk := EchoDisk(t, dir)
	display := freeVNCDisplay(t)
	qmp := filepath.Join(dir, "qmp.sock")
	p := Start(t, "qemu-machine", exec.Command("qemu-system-x86_64", "-machine", "pc", "-accel", "tcg", "-m", fmt.Sprint(memMiB),
		"-display", "none", "-monitor", "none", "-serial", "none", "-net", "none", "-no-shutdown", "-boot", "c",
		"-drive", "file="+disk+",format=qcow2,if=ide",
		"-qmp", "unix:"+qmp+",server=on,wait=off",
		"-vnc", fmt.Sprintf("127.0.0.1:%d", display)))
	port := 5900 + display
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	WaitTCP(t, addr, 20*time.Second)
	WaitFile(t, qmp, 10*time.Second)
	return &QEMUMachine{VNC: VNC{Display: &Display{Num: -1, Dir: dir, Proc: p}, Port: port, Addr: addr, Server: p}, QMP: qmp, Disk: disk}
}

// Libvirtd is a libvirt daemon of its own: a session daemon run as nobody
// with every directory under a temporary one, so it shares nothing with a
// system libvirt. Its socket admits root (the test), which bypasses the
// directory's mode.
type Libvirtd struct {
	Dir    string // owned by nobody; disks of its domains go here
	Socket string
	URI    string // for virsh -c
	Proc   *Proc
}

// StartLibvirtd starts the daemon and waits for its socket.
func StartLibvirtd(t testing.TB) *Libvirtd {
	t.Helper()
	Need(t, "libvirtd", "virsh", "setpriv")
	NeedRoot(t, "a libvirt daemon of its own (run as nobody)")
	dir, err := os.MkdirTemp("", "dvv-libvirt-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, d := range []string{"home", "run", "cfg", "cache"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("chown", "-R", "nobody", dir).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v: %s", err, out)
	}
	os.Chmod(dir, 0o755)
	cmd := exec.Command("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "libvirtd")
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + dir + "/home", "XDG_RUNTIME_DIR=" + dir + "/run", "XDG_CONFIG_HOME=" + dir + "/cfg",
		"XDG_CACHE_HOME=" + dir + "/cache", "PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
	p := Start(t, "libvirtd", cmd)
	sock := filepath.Join(dir, "run", "libvirt", "libvirt-sock")
	WaitFile(t, sock, 20*time.Second)
	return &Libvirtd{Dir: dir, Socket: sock, URI: "qemu:///session?socket=" + sock, Proc: p}
}

// Virsh runs virsh against this daemon and returns its output.
func (l *Libvirtd) Virsh(t testing.TB, args ...string) string {
	t.Helper()
	out, err := exec.Command("virsh", append([]string{"-c", l.URI}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("virsh %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// DefineEcho defines and starts a domain named name booting a copy of the
// echo disk, its VGA screen on a VNC server on 127.0.0.1; it is destroyed
// and undefined at cleanup. It returns the VNC address.
func (l *Libvirtd) DefineEcho(t testing.TB, name string, memMiB int) *VNC {
	t.Helper()
	dir := filepath.Join(l.Dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	disk := EchoDisk(t, dir)
	if out, err := exec.Command("chown", "-R", "nobody", dir).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v: %s", err, out)
	}
	display := freeVNCDisplay(t)
	port := 5900 + display
	xml := fmt.Sprintf(`<domain type='qemu'>
  <name>%s</name>
  <memory unit='MiB'>%d</memory>
  <vcpu>1</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type><boot dev='hd'/></os>
  <features><acpi/></features>
  <devices>
    <emulator>/usr/bin/qemu-system-x86_64</emulator>
    <disk type='file' device='disk'><driver name='qemu' type='qcow2'/><source file='%s'/><target dev='hda' bus='ide'/></disk>
    <graphics type='vnc' port='%d' autoport='no' listen='127.0.0.1'/>
    <video><model type='vga'/></video>
  </devices>
</domain>`, name, memMiB, disk, port)
	xf := filepath.Join(dir, "domain.xml")
	if err := os.WriteFile(xf, []byte(xml), 0o644); err != nil {
		t.Fatal(err)
	}
	l.Virsh(t, "define", xf)
	t.Cleanup(func() {
		exec.Command("virsh", "-c", l.URI, "destroy", name).Run()
		exec.Command("virsh", "-c", l.URI, "undefine", name, "--snapshots-metadata").Run()
	})
	l.Virsh(t, "start", name)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	WaitTCP(t, addr, 20*time.Second)
	return &VNC{Display: &Display{Num: -1, Dir: dir}, Port: port, Addr: addr}
}
