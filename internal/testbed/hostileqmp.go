package testbed

import (
	"bufio"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Behaviours of a hostile QMP server (ServeQMP): each speaks the real
// protocol on a real Unix socket up to the point where it turns.
const (
	QMPEndlessGreeting = "endless-greeting" // a greeting whose JSON string never ends
	QMPSilent          = "silent"           // greets, then never answers qmp_capabilities
	QMPEndlessReply    = "endless-reply"    // answers query-status with a never-ending string
	QMPHugeReply       = "huge-reply"       // answers query-status with one 8 MiB line
	QMPGarbage         = "garbage"          // answers query-status with lines that are not JSON, forever
	QMPCloseMidReply   = "close-mid-reply"  // closes half-way through its answer
	QMPEventFlood      = "event-flood"      // answers query-status with events only, forever
	QMPFakeRunning     = "fake-running"     // a well-behaved fake: a machine that runs
)

const qmpGreeting = `{"QMP": {"version": {"qemu": {"micro": 0, "minor": 2, "major": 8}, "package": ""}, "capabilities": []}}` + "\n"

// HostileQMP serves behaviour on a fresh socket in t.TempDir() until the
// test ends and returns the socket's path.
func HostileQMP(t testing.TB, behaviour string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "qmp.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go ServeQMP(ln, behaviour)
	return path
}

// ServeQMP answers every connection on ln as behaviour says, until ln
// closes.
func ServeQMP(ln net.Listener, behaviour string) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			serveQMPConn(c, behaviour)
		}()
	}
}

func serveQMPConn(c net.Conn, behaviour string) {
	if behaviour == QMPEndlessGreeting {
		c.Write([]byte(`{"QMP": {"version": "`))
		endless(c, 'v')
		return
	}
	c.Write([]byte(qmpGreeting))
	r := bufio.NewReader(c)
	if _, err := r.ReadString('\n'); err != nil { // qmp_capabilities
		return
	}
	if behaviour == QMPSilent {
		io.Copy(io.Discard, c)
		return
	}
	c.Write([]byte(`{"return": {}}` + "\n"))
	for {
		cmd, err := r.ReadString('\n')
		if err != nil {
			return
		}
		switch behaviour {
		case QMPEndlessReply:
			c.Write([]byte(`{"return": {"status": "`))
			endless(c, 'r')
			return
		case QMPHugeReply:
			c.Write([]byte(`{"return": {"status": "`))
			chunk := []byte(strings.Repeat("r", 64<<10))
			for n := 0; n < 8<<20; n += len(chunk) {
				if _, err := c.Write(chunk); err != nil {
					return
				}
			}
			c.Write([]byte(`"}}` + "\n"))
		case QMPGarbage:
			for {
				if _, err := c.Write([]byte("this is not QMP\n")); err != nil {
					return
				}
			}
		case QMPCloseMidReply:
			c.Write([]byte(`{"return": {"status": "runn`))
			return
		case QMPEventFlood:
			ev := []byte(`{"event": "RTC_CHANGE", "data": {"offset": 1}, "timestamp": {"seconds": 1, "microseconds": 2}}` + "\n")
			for {
				if _, err := c.Write(ev); err != nil {
					return
				}
			}
		case QMPFakeRunning:
			if strings.Contains(cmd, "query-status") {
				c.Write([]byte(`{"return": {"status": "running", "running": true}}` + "\n"))
			} else {
				c.Write([]byte(`{"return": {}}` + "\n"))
			}
		}
	}
}

// endless writes b until the peer goes away, or (so that a client that
// reads it all cannot take the test machine's memory with it) 512 MiB
// were sent, then holds the line open without a word more.
func endless(c net.Conn, b byte) {
	chunk := []byte(strings.Repeat(string(b), 64<<10))
	for n := 0; n < 512<<20; n += len(chunk) {
		if _, err := c.Write(chunk); err != nil {
			return
		}
	}
	io.Copy(io.Discard, c)
}

// ServeQMPMain is the body of a fake QMP server program: it listens at
// os.Args[1] (made connectable by all, so a process of another uid can
// reach it), serves os.Args[2], and prints "accepted" for each
// connection.
func ServeQMPMain() {
	ln, err := net.Listen("unix", os.Args[1])
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	os.Chmod(os.Args[1], 0o777)
	os.Stdout.WriteString("listening\n")
	ServeQMP(tellingListener{ln}, os.Args[2])
}

type tellingListener struct{ net.Listener }

func (l tellingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		os.Stdout.WriteString("accepted\n")
	}
	return c, err
}
