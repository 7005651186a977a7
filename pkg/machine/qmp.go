package machine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dvvhq/dvv/pkg/wire"
)

// qmpMachine is QEMU reached through its QMP socket.
type qmpMachine struct {
	spec Spec
	q    *qmpConn
	once sync.Once
	gone bool // nothing listens at the socket: QEMU has ended
}

// dialTimeout bounds reaching a local QMP socket.
const dialTimeout = 5 * time.Second

func openQMP(ctx context.Context, s Spec, ssh SSHDialer) (Machine, error) {
	m := &qmpMachine{spec: s}
	var q *qmpConn
	if s.Backend == QMPSSH {
		if ssh == nil {
			return nil, &wire.Error{Code: wire.Unsupported, Message: "this dvvd reaches no machine through SSH", Next: "Use a local qmp: socket, or a dvvd built with SSH."}
		}
		conn, err := ssh(ctx, s.User, s.Host, s.Port, s.Path)
		if err != nil {
			return nil, unreachable(s, err)
		}
		q = newQMPConn(ctx, s, conn)
	} else {
		if err := checkSocketOwner(s); err != nil {
			return nil, err
		}
		var err error
		q, err = dialQMP(ctx, s, s.Path)
		if err != nil {
			if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT) {
				m.gone = true
				return m, nil
			}
			return nil, unreachable(s, err)
		}
		if err := checkPeer(s, q.c); err != nil {
			q.Close()
			return nil, err
		}
	}
	m.q = q
	if err := q.handshake(); err != nil {
		q.Close()
		return nil, unreachable(s, err)
	}
	return m, nil
}

func (m *qmpMachine) Close() error {
	m.once.Do(func() {
		if m.q != nil {
			m.q.Close()
		}
	})
	return nil
}

// ended answers an act on a QEMU that is gone.
func (m *qmpMachine) ended(act string) error {
	return &wire.Error{Code: wire.MachineRefused, Message: fmt.Sprintf("machine %s: nothing listens at the QMP socket (QEMU has ended), so it cannot %s", m.spec, act),
		Next: "Start QEMU again yourself (QMP cannot start a process), or name the machine through libvirt, which can start it."}
}

// run runs a command QEMU answers at once.
func (m *qmpMachine) run(cmd string, args any) (json.RawMessage, error) {
	return m.q.run(cmd, args, qmpQuickTimeout)
}

// do runs a command whose answer is only whether it was done.
func (m *qmpMachine) do(cmd string) func() error {
	return func() error {
		_, err := m.run(cmd, nil)
		return err
	}
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
	ms.State, ms.Detail = qmpState(st), plain(st, 64)
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
		var we *wire.Error
		if errors.As(err, &we) {
			return we
		}
		return refused(m.spec, name, err)
	}
	return nil
}

func (m *qmpMachine) Pause(ctx context.Context) error { return m.act("pause", m.do("stop")) }

func (m *qmpMachine) Resume(ctx context.Context) error {
	return m.act("resume", func() error {
		st, err := m.status()
		if err != nil {
			return err
		}
		if st == "suspended" {
			return m.do("system_wakeup")()
		}
		return m.do("cont")()
	})
}

func (m *qmpMachine) Power(ctx context.Context) error {
	return m.act("press the power button", m.do("system_powerdown"))
}
func (m *qmpMachine) Reset(ctx context.Context) error { return m.act("reset", m.do("system_reset")) }

// Stop ends QEMU (quit): with no supervisor, nothing starts it again.
// QEMU may close the socket before its answer arrives; that is the act
// done, and the machine reads as shut off after it.
func (m *qmpMachine) Stop(ctx context.Context) error {
	err := m.act("stop", func() error {
		err := m.do("quit")()
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
			if err := m.do("system_reset")(); err != nil {
				return err
			}
		case "prelaunch":
		default:
			return fmt.Errorf("the machine is %s; resume it instead", st)
		}
		return m.do("cont")()
	})
}

// hmp runs a monitor command whose output is empty on success and the
// error's words otherwise (savevm, loadvm, delvm).
func (m *qmpMachine) hmp(line string) error {
	// The monitor's own commands take as long as the guest's memory
	// needs: bounded by the act's timeout, not a quick one.
	raw, err := m.q.run("human-monitor-command", map[string]string{"command-line": line}, 0)
	if err != nil {
		return err
	}
	var out string
	if err := json.Unmarshal(raw, &out); err != nil {
		return m.q.protocol("its answer to %s is not text (%s)", line, clip(raw))
	}
	if out = strings.TrimSpace(out); out != "" {
		return errors.New(plain(out, 200))
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
