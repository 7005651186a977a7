package machine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/digitalocean/go-qemu/qmp"
	"github.com/digitalocean/go-qemu/qmp/raw"

	"github.com/dvvhq/dvv/pkg/wire"
)

// qmpMachine is QEMU reached through its QMP socket.
type qmpMachine struct {
	spec  Spec
	mon   *qmp.SocketMonitor
	raw   *raw.Monitor
	relay io.Closer // the local end of a qmp+ssh hop
	stop  func() bool
	once  sync.Once
	gone  bool // nothing listens at the socket: QEMU has ended
}

// dialTimeout bounds reaching a local QMP socket.
const dialTimeout = 5 * time.Second

func openQMP(ctx context.Context, s Spec, ssh SSHDialer) (Machine, error) {
	m := &qmpMachine{spec: s}
	sock := s.Path
	if s.Backend == QMPSSH {
		if ssh == nil {
			return nil, &wire.Error{Code: wire.Unsupported, Message: "this dvvd reaches no machine through SSH", Next: "Use a local qmp: socket, or a dvvd built with SSH."}
		}
		conn, err := ssh(ctx, s.User, s.Host, s.Port, s.Path)
		if err != nil {
			return nil, unreachable(s, err)
		}
		// go-qemu's monitor dials a socket itself: hand it a private
		// local socket whose one connection is the SSH channel.
		r, path, err := relay(conn)
		if err != nil {
			conn.Close()
			return nil, unreachable(s, err)
		}
		m.relay, sock = r, path
	}
	mon, err := qmp.NewSocketMonitor("unix", sock, dialTimeout)
	if err != nil {
		m.closeRelay()
		if s.Backend == QMP && (errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)) {
			m.gone = true
			return m, nil
		}
		return nil, unreachable(s, err)
	}
	m.mon = mon
	// A QEMU that answers nothing must not hold the act: the context's
	// end closes the socket, which fails the call in flight.
	m.stop = context.AfterFunc(ctx, func() { mon.Disconnect() })
	if err := mon.Connect(); err != nil {
		m.Close()
		return nil, unreachable(s, fmt.Errorf("QMP handshake: %w", err))
	}
	m.raw = raw.NewMonitor(mon)
	return m, nil
}

func (m *qmpMachine) closeRelay() {
	if m.relay != nil {
		m.relay.Close()
	}
}

func (m *qmpMachine) Close() error {
	m.once.Do(func() {
		if m.stop != nil {
			m.stop()
		}
		if m.mon != nil {
			m.mon.Disconnect()
		}
		m.closeRelay()
	})
	return nil
}

// ended answers an act on a QEMU that is gone.
func (m *qmpMachine) ended(act string) error {
	return &wire.Error{Code: wire.MachineRefused, Message: fmt.Sprintf("machine %s: nothing listens at the QMP socket (QEMU has ended), so it cannot %s", m.spec, act),
		Next: "Start QEMU again yourself (QMP cannot start a process), or name the machine through libvirt, which can start it."}
}

func (m *qmpMachine) run(cmd string, args any) (json.RawMessage, error) {
	b, err := json.Marshal(qmp.Command{Execute: cmd, Args: args})
	if err != nil {
		return nil, err
	}
	out, err := m.mon.Run(b)
	if err != nil {
		return nil, err
	}
	var r struct {
		Return json.RawMessage `json:"return"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return nil, err
	}
	return r.Return, nil
}

// status is QEMU's run state (query-status), read as text so a state
// newer than go-qemu's schema still reads.
func (m *qmpMachine) status() (string, error) {
	out, err := m.run("query-status", nil)
	if err != nil {
		return "", err
	}
	var st struct {
		Status string `json:"status"`
	}
	if err := json.Unmarshal(out, &st); err != nil {
		return "", err
	}
	return st.Status, nil
}

func (m *qmpMachine) State(ctx context.Context) (wire.MachineState, error) {
	ms := wire.MachineState{Backend: m.spec.Backend, Machine: m.spec.String()}
	if m.gone {
		ms.State, ms.Detail = wire.MachineShutoff, "no QEMU listens at the QMP socket"
		return ms, nil
	}
	st, err := m.status()
	if err != nil {
		return ms, unreachable(m.spec, err)
	}
	ms.State, ms.Detail = qmpState(st), st
	return ms, nil
}

// qmpState maps QEMU's RunState onto dvv's words.
func qmpState(st string) string {
	switch st {
	case "running":
		return wire.MachineRunning
	case "paused", "debug", "watchdog", "prelaunch", "restore-vm", "save-vm", "io-error":
		if st == "io-error" {
			return wire.MachineCrashed
		}
		return wire.MachinePaused
	case "shutdown":
		return wire.MachineShutoff
	case "suspended":
		return wire.MachineSuspended
	case "internal-error", "guest-panicked":
		return wire.MachineCrashed
	}
	return wire.MachineOther
}

func (m *qmpMachine) act(name string, fn func() error) error {
	if m.gone {
		return m.ended(name)
	}
	if err := fn(); err != nil {
		return refused(m.spec, name, err)
	}
	return nil
}

func (m *qmpMachine) Pause(ctx context.Context) error { return m.act("pause", m.raw.Stop) }

func (m *qmpMachine) Resume(ctx context.Context) error {
	return m.act("resume", func() error {
		st, err := m.status()
		if err != nil {
			return err
		}
		if st == "suspended" {
			return m.raw.SystemWakeup()
		}
		return m.raw.Cont()
	})
}

func (m *qmpMachine) Power(ctx context.Context) error {
	return m.act("press the power button", m.raw.SystemPowerdown)
}
func (m *qmpMachine) Reset(ctx context.Context) error { return m.act("reset", m.raw.SystemReset) }

// Stop ends QEMU (quit): with no supervisor, nothing starts it again.
// QEMU may close the socket before its answer arrives; that is the act
// done, and the machine reads as shut off after it.
func (m *qmpMachine) Stop(ctx context.Context) error {
	err := m.act("stop", func() error {
		err := m.raw.Quit()
		if err != nil && connectionEnded(err) {
			return nil
		}
		return err
	})
	if err == nil {
		m.gone = true
	}
	return err
}

// connectionEnded reports the socket closing under a call.
func connectionEnded(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, net.ErrClosed) ||
		strings.Contains(err.Error(), "unexpected end of JSON input")
}

// Start runs a QEMU that is there but not running the guest: one started
// with -S (prelaunch), or one whose guest powered off under -no-shutdown
// (it boots afresh).
func (m *qmpMachine) Start(ctx context.Context) error {
	return m.act("start", func() error {
		st, err := m.status()
		if err != nil {
			return err
		}
		switch st {
		case "running":
			return errors.New("the machine is already running")
		case "shutdown":
			if err := m.raw.SystemReset(); err != nil {
				return err
			}
		case "prelaunch":
		default:
			return fmt.Errorf("the machine is %s; resume it instead", st)
		}
		return m.raw.Cont()
	})
}

// hmp runs a monitor command whose output is empty on success and the
// error's words otherwise (savevm, loadvm, delvm).
func (m *qmpMachine) hmp(line string) error {
	out, err := m.raw.HumanMonitorCommand(line, nil)
	if err != nil {
		return err
	}
	if out = strings.TrimSpace(out); out != "" {
		return errors.New(out)
	}
	return nil
}

func (m *qmpMachine) SnapshotCreate(ctx context.Context, name string) (bool, error) {
	if err := CheckSnapshotName(name); err != nil {
		return false, err
	}
	return true, m.act("take a snapshot", func() error { return m.hmp("savevm " + name) })
}

func (m *qmpMachine) SnapshotRestore(ctx context.Context, name string) error {
	if err := CheckSnapshotName(name); err != nil {
		return err
	}
	if err := m.exists(name); err != nil {
		return err
	}
	return m.act("restore a snapshot", func() error { return m.hmp("loadvm " + name) })
}

func (m *qmpMachine) SnapshotDelete(ctx context.Context, name string) error {
	if err := CheckSnapshotName(name); err != nil {
		return err
	}
	if err := m.exists(name); err != nil {
		return err
	}
	return m.act("delete a snapshot", func() error { return m.hmp("delvm " + name) })
}

func (m *qmpMachine) exists(name string) error {
	if m.gone {
		return m.ended("use a snapshot")
	}
	list, err := m.Snapshots(context.Background())
	if err != nil {
		return err
	}
	for _, s := range list {
		if s.Name == name {
			return nil
		}
	}
	return noSnapshot(m.spec, name)
}

// Snapshots lists the internal snapshots of the machine's disks
// (query-block), once per name; one with a VM state holds memory.
func (m *qmpMachine) Snapshots(ctx context.Context) ([]wire.Snapshot, error) {
	if m.gone {
		return nil, m.ended("list snapshots")
	}
	out, err := m.run("query-block", nil)
	if err != nil {
		return nil, unreachable(m.spec, err)
	}
	var blocks []struct {
		Inserted *struct {
			Image struct {
				Snapshots []struct {
					Name        string `json:"name"`
					VMStateSize int64  `json:"vm-state-size"`
					DateSec     int64  `json:"date-sec"`
					DateNsec    int64  `json:"date-nsec"`
				} `json:"snapshots"`
			} `json:"image"`
		} `json:"inserted"`
	}
	if err := json.Unmarshal(out, &blocks); err != nil {
		return nil, unreachable(m.spec, err)
	}
	list := []wire.Snapshot{}
	seen := map[string]bool{}
	for _, b := range blocks {
		if b.Inserted == nil {
			continue
		}
		for _, s := range b.Inserted.Image.Snapshots {
			if seen[s.Name] {
				continue
			}
			seen[s.Name] = true
			list = append(list, wire.Snapshot{Name: s.Name, CreatedMs: s.DateSec*1000 + s.DateNsec/1e6, Memory: s.VMStateSize > 0})
		}
	}
	return list, nil
}

// relay listens on a fresh socket in a private directory and hands its
// first connection to conn, both ways. Closing it ends both.
func relay(conn net.Conn) (io.Closer, string, error) {
	dir, err := os.MkdirTemp("", "dvv-qmp-")
	if err != nil {
		return nil, "", err
	}
	path := filepath.Join(dir, "qmp.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		os.RemoveAll(dir)
		return nil, "", err
	}
	r := &relayed{ln: ln, conn: conn, dir: dir}
	go func() {
		c, err := ln.Accept()
		ln.Close()
		if err != nil {
			return
		}
		r.mu.Lock()
		r.local = c
		closed := r.closed
		r.mu.Unlock()
		if closed {
			c.Close()
			return
		}
		go func() { io.Copy(conn, c); conn.Close() }()
		io.Copy(c, conn)
		c.Close()
	}()
	return r, path, nil
}

type relayed struct {
	ln     net.Listener
	conn   net.Conn
	dir    string
	mu     sync.Mutex
	local  net.Conn
	closed bool
}

func (r *relayed) Close() error {
	r.mu.Lock()
	r.closed = true
	if r.local != nil {
		r.local.Close()
	}
	r.mu.Unlock()
	r.ln.Close()
	r.conn.Close()
	return os.RemoveAll(r.dir)
}
