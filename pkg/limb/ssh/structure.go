package ssh

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/sshx"
	"github.com/dvvhq/dvv/pkg/wire"
	"github.com/dvvhq/dvv/pkg/xwin"
)

// DialStructure opens a desktop limb's structure with default options.
func DialStructure(ctx context.Context, t limb.Target) (limb.Structure, error) {
	return Options{}.DialStructure(ctx, t)
}

var _ limb.StructureDialer = DialStructure

// findSession is run by the sidecar's shell (POSIX sh, Linux /proc): it
// names the X display behind the VNC server listening on port %d — the
// listening socket's inode in /proc/net/tcp, the process holding it, and
// the X socket that process listens on (Xvnc), else the display its
// command line or environment names (x11vnc) — else the only display on
// the machine. Then the X server's -auth file (its cookies), the user's
// ~/.Xauthority, and whether a Wayland socket is there instead.
const findSession = `P=%d
echo "uid=$(id -u)"
echo "kernel=$(uname -s)"
hp=$(printf '%%04X' "$P")
ino=$(awk -v h=":$hp" 'FNR>1 && $4=="0A" && substr($2, length($2)-4)==h {print $10; exit}' /proc/net/tcp /proc/net/tcp6 2>/dev/null)
pid=
if [ -n "$ino" ]; then
  f=$(find /proc/[0-9]*/fd -maxdepth 1 -lname "socket:\[$ino\]" 2>/dev/null | head -n 1)
  pid=${f#/proc/}; pid=${pid%%%%/*}
fi
xsock() { # the X display a process listens on
  l=$(find /proc/$1/fd -maxdepth 1 -lname 'socket:*' -printf '%%l\n' 2>/dev/null | tr -dc '0-9\n')
  awk -v l="$l" 'BEGIN{n=split(l,a,"\n"); for(i=1;i<=n;i++) s[a[i]]=1} ($7 in s) && $8 ~ /\/tmp\/\.X11-unix\/X[0-9]+$/ {sub(/.*X/, "", $8); print $8; exit}' /proc/net/unix
}
d=
how=
if [ -n "$pid" ]; then
  d=$(xsock "$pid"); how="the X server listening on VNC port $P"
  if [ -z "$d" ]; then
    d=$(tr '\0' '\n' < /proc/$pid/cmdline 2>/dev/null | awk 'p{print; exit} $0=="-display"{p=1}' | sed -n 's/^[^:]*:\([0-9]*\).*/\1/p')
    [ -z "$d" ] && d=$(tr '\0' '\n' < /proc/$pid/environ 2>/dev/null | sed -n 's/^DISPLAY=[^:]*:\([0-9]*\).*/\1/p' | head -n 1)
    how="the display of the VNC server on port $P"
  fi
fi
if [ -z "$d" ]; then
  n=$(ls /tmp/.X11-unix 2>/dev/null | grep -c '^X[0-9][0-9]*$')
  echo "displays=$n"
  [ "$n" = 1 ] && d=$(ls /tmp/.X11-unix | sed -n 's/^X\([0-9][0-9]*\)$/\1/p') && how="the only X display on the machine"
fi
echo "display=$d"
echo "how=$how"
if [ -n "$d" ]; then
  xi=$(awk -v p="/tmp/.X11-unix/X$d" '$8==p || $8=="@"p {print $7; exit}' /proc/net/unix)
  xf=$(find /proc/[0-9]*/fd -maxdepth 1 -lname "socket:\[$xi\]" 2>/dev/null | head -n 1)
  xp=${xf#/proc/}; xp=${xp%%%%/*}
  if [ -n "$xp" ]; then
    a=$(tr '\0' '\n' < /proc/$xp/cmdline 2>/dev/null | awk 'p{print; exit} $0=="-auth"{p=1}')
    [ -n "$a" ] && [ -r "$a" ] && echo "serverauth=$(od -An -v -tx1 "$a" | tr -d ' \n')"
  fi
fi
ua=${XAUTHORITY:-$HOME/.Xauthority}
[ -r "$ua" ] && echo "userauth=$(od -An -v -tx1 "$ua" | tr -d ' \n')"
ls /run/user/$(id -u)/wayland-* >/dev/null 2>&1 && echo "wayland=1"
exit 0
`

type structure struct {
	c    *sshx.Client
	info limb.StructureInfo
}

func noStructure(format string, args ...any) *wire.Error {
	return wire.Errorf(wire.NoStructure, format, args...)
}

// DialStructure opens a second SSH connection to the desktop's machine
// (t.SSHPort, t.SSHUser, as files do), finds the session's X display and
// accessibility bus, and checks the X server accepts it.
func (o Options) DialStructure(ctx context.Context, t limb.Target) (limb.Structure, error) {
	c, err := sshx.Dial(ctx, o.sshOptions(t.Address, t.SSHPort, t.SSHUser, ""))
	if err != nil {
		inner := dialError(err, t.Address, t.SSHPort)
		e := noStructure("no SSH sidecar at %s: %s. %s", t.Address, inner.Message, inner.Next)
		e.Fingerprint = inner.Fingerprint
		return nil, e
	}
	s, err := openStructure(ctx, c, t.Port)
	if err != nil {
		c.Close()
		return nil, err
	}
	return s, nil
}

func openStructure(ctx context.Context, c *sshx.Client, vncPort int) (*structure, error) {
	r, err := c.Run(ctx, fmt.Sprintf(findSession, vncPort), sshx.RunOptions{MaxOutput: 1 << 20})
	if err != nil {
		return nil, noStructure("the SSH sidecar could not look for the desktop session: %v", err)
	}
	kv := map[string]string{}
	for _, line := range strings.Split(string(r.Stdout), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			kv[k] = v
		}
	}
	s := &structure{c: c}
	switch k := kv["kernel"]; {
	case k == "Darwin":
		return nil, noStructure("the sidecar's machine runs macOS: window structure there needs the Accessibility API with a granted permission, which dvv does not drive yet (docs/structure.md)")
	case k != "Linux":
		return nil, noStructure("the sidecar's machine is not Linux (%q): window structure needs an X11 session (docs/structure.md)", strings.TrimSpace(string(r.Stdout)+string(r.Stderr)))
	}
	s.info.UID, _ = strconv.Atoi(kv["uid"])
	d := kv["display"]
	if d == "" {
		if kv["wayland"] == "1" {
			return nil, noStructure("the session on the sidecar's machine is Wayland, with no X11 display: Wayland offers no window list to other programs")
		}
		return nil, noStructure("the sidecar found no X11 display serving VNC port %d (%s X displays on the machine, none held by the process listening on that port)", vncPort, kv["displays"])
	}
	s.info.Display, s.info.XSocket, s.info.Found = ":"+d, "/tmp/.X11-unix/X"+d, kv["how"]
	var cookies [][]byte
	if b, err := hex.DecodeString(kv["serverauth"]); err == nil {
		cookies = append(cookies, xauthCookies(b, "")...)
	}
	if b, err := hex.DecodeString(kv["userauth"]); err == nil {
		cookies = append(cookies, xauthCookies(b, d)...)
	}
	cookies = append(cookies, nil) // last, no authorization
	var x *xwin.Conn
	var lastErr error
	for _, ck := range cookies {
		nc, err := s.DialX11(ctx)
		if err != nil {
			return nil, err
		}
		stop := context.AfterFunc(ctx, func() { nc.Close() }) // a stalled X setup ends with the dial's deadline
		x, lastErr = xwin.Open(nc, ck)
		stop()
		if lastErr == nil {
			s.info.XCookie = ck
			break
		}
	}
	if x == nil {
		return nil, noStructure("the X server %s on the sidecar's machine refused dvv: %v (no cookie it accepts in its -auth file or the sidecar user's ~/.Xauthority)", s.info.Display, lastErr)
	}
	defer x.Close()
	context.AfterFunc(ctx, x.Close)
	bus, _ := x.RootString("AT_SPI_BUS")
	switch {
	case bus == "":
		s.info.A11yAbsent = "no accessibility bus: the root window has no AT_SPI_BUS (at-spi-bus-launcher does not run in this session)"
	case a11yPath(bus) == "":
		s.info.A11yAbsent = fmt.Sprintf("the accessibility bus %q is not a path socket, which SSH cannot forward", bus)
	default:
		s.info.A11yBus = bus
	}
	return s, nil
}

// a11yPath is the socket path of a D-Bus address "unix:path=P,guid=…".
func a11yPath(addr string) string {
	for _, a := range strings.Split(addr, ";") {
		rest, ok := strings.CutPrefix(a, "unix:")
		if !ok {
			continue
		}
		for _, kv := range strings.Split(rest, ",") {
			if p, ok := strings.CutPrefix(kv, "path="); ok {
				return p
			}
		}
	}
	return ""
}

// xauthCookies are the MIT-MAGIC-COOKIE-1 entries of an Xauthority file:
// every one when display is "" (the X server's own -auth file, all of
// which it accepts), else those for that display number or any.
func xauthCookies(b []byte, display string) [][]byte {
	var out [][]byte
	r := bytes.NewReader(b)
	field := func() ([]byte, bool) {
		var n uint16
		if binary.Read(r, binary.BigEndian, &n) != nil || int(n) > r.Len() {
			return nil, false
		}
		f := make([]byte, n)
		r.Read(f)
		return f, true
	}
	for r.Len() > 0 {
		var family uint16
		if binary.Read(r, binary.BigEndian, &family) != nil {
			break
		}
		_, ok1 := field()
		disp, ok2 := field()
		name, ok3 := field()
		data, ok4 := field()
		if !(ok1 && ok2 && ok3 && ok4) {
			break
		}
		if string(name) == "MIT-MAGIC-COOKIE-1" && len(data) == 16 && (display == "" || len(disp) == 0 || string(disp) == display) {
			out = append(out, data)
		}
	}
	return out
}

func (s *structure) Info() limb.StructureInfo { return s.info }

func (s *structure) DialX11(ctx context.Context) (net.Conn, error) {
	nc, err := s.c.SSH.DialContext(ctx, "unix", s.info.XSocket)
	if err != nil {
		return nil, noStructure("the SSH sidecar could not reach the X socket %s: %v (sshd's AllowStreamLocalForwarding must not be no)", s.info.XSocket, err)
	}
	return nc, nil
}

func (s *structure) DialA11y(ctx context.Context) (net.Conn, error) {
	if s.info.A11yBus == "" {
		return nil, noStructure("%s", s.info.A11yAbsent)
	}
	p := a11yPath(s.info.A11yBus)
	nc, err := s.c.SSH.DialContext(ctx, "unix", p)
	if err != nil {
		return nil, noStructure("the SSH sidecar could not reach the accessibility bus %s: %v", p, err)
	}
	return nc, nil
}

func (s *structure) Done() <-chan struct{} { return s.c.Done() }
func (s *structure) Close() error          { return s.c.Close() }
