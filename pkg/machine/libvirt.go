package machine

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/digitalocean/go-libvirt"
	"github.com/digitalocean/go-libvirt/socket/dialers"

	"github.com/dvvhq/dvv/pkg/wire"
)

// libvirtMachine is a libvirt domain.
type libvirtMachine struct {
	spec Spec
	lv   *libvirt.Libvirt
	dom  libvirt.Domain
	stop func() bool
	once sync.Once
}

// socketPath is the libvirt socket a URI's daemon listens on, as libvirt's
// own client finds it: system under /run/libvirt, session under
// $XDG_RUNTIME_DIR (or ~/.cache).
func socketPath(s Spec, local bool) string {
	if s.Socket != "" {
		return s.Socket
	}
	u, _ := url.Parse(s.URI)
	if u != nil && u.Path == "/session" && local {
		dir := os.Getenv("XDG_RUNTIME_DIR")
		if dir == "" {
			home, _ := os.UserHomeDir()
			dir = filepath.Join(home, ".cache")
		}
		return filepath.Join(dir, "libvirt", "libvirt-sock")
	}
	return "/run/libvirt/libvirt-sock"
}

// driverURI is the URI given to the daemon once connected: the driver
// part only (the daemon at the other end is already the right one).
func driverURI(s Spec) string {
	u, err := url.Parse(s.URI)
	if err != nil {
		return s.URI
	}
	return "qemu://" + u.Path
}

func openLibvirt(ctx context.Context, s Spec, ssh SSHDialer) (Machine, error) {
	var conn net.Conn
	var err error
	if s.Host != "" {
		if ssh == nil {
			return nil, &wire.Error{Code: wire.Unsupported, Message: "this dvvd reaches no machine through SSH", Next: "Use a local libvirt URI, or a dvvd built with SSH."}
		}
		conn, err = ssh(ctx, s.User, s.Host, s.Port, socketPath(s, false))
	} else {
		var d net.Dialer
		conn, err = d.DialContext(ctx, "unix", socketPath(s, true))
	}
	if err != nil {
		return nil, unreachable(s, err)
	}
	lv := libvirt.NewWithDialer(dialers.NewAlreadyConnected(conn))
	m := &libvirtMachine{spec: s, lv: lv}
	m.stop = context.AfterFunc(ctx, func() { conn.Close() })
	if err := lv.ConnectToURI(libvirt.ConnectURI(driverURI(s))); err != nil {
		m.stop()
		conn.Close()
		return nil, unreachable(s, err)
	}
	dom, err := lv.DomainLookupByName(s.Domain)
	if err != nil {
		m.Close()
		if lverr(err) == libvirt.ErrNoDomain {
			return nil, &wire.Error{Code: wire.NotFound, Message: fmt.Sprintf("libvirt at %s has no domain %q", s.URI, s.Domain),
				Next: "List the domains (`virsh -c URI list --all`) and name one in the machine string."}
		}
		return nil, unreachable(s, err)
	}
	m.dom = dom
	return m, nil
}

func lverr(err error) libvirt.ErrorNumber {
	var e libvirt.Error
	if errors.As(err, &e) {
		return libvirt.ErrorNumber(e.Code)
	}
	return 0
}

func (m *libvirtMachine) Close() error {
	m.once.Do(func() {
		m.stop()
		m.lv.Disconnect()
	})
	return nil
}

func (m *libvirtMachine) act(name string, fn func() error) error {
	if err := fn(); err != nil {
		if lverr(err) == libvirt.ErrNoDomainSnapshot {
			return &wire.Error{Code: wire.NotFound, Message: fmt.Sprintf("machine %s: %v", m.spec, err),
				Next: "List the snapshots (`dvv machine L snapshot list`) and name one of them."}
		}
		return refused(m.spec, name, err)
	}
	return nil
}

// The words libvirt's virsh uses for a state and its reasons.
var lvStates = map[libvirt.DomainState]struct{ state, word string }{
	libvirt.DomainNostate:     {wire.MachineOther, "no state"},
	libvirt.DomainRunning:     {wire.MachineRunning, "running"},
	libvirt.DomainBlocked:     {wire.MachineRunning, "idle"},
	libvirt.DomainPaused:      {wire.MachinePaused, "paused"},
	libvirt.DomainShutdown:    {wire.MachineRunning, "in shutdown"},
	libvirt.DomainShutoff:     {wire.MachineShutoff, "shut off"},
	libvirt.DomainCrashed:     {wire.MachineCrashed, "crashed"},
	libvirt.DomainPmsuspended: {wire.MachineSuspended, "pmsuspended"},
}

func (m *libvirtMachine) State(ctx context.Context) (wire.MachineState, error) {
	ms := wire.MachineState{Backend: Libvirt, Machine: m.spec.String()}
	st, reason, err := m.lv.DomainGetState(m.dom, 0)
	if err != nil {
		return ms, unreachable(m.spec, err)
	}
	w, ok := lvStates[libvirt.DomainState(st)]
	if !ok {
		w.state, w.word = wire.MachineOther, fmt.Sprintf("state %d", st)
	}
	ms.State, ms.Detail = w.state, fmt.Sprintf("%s (reason %d)", w.word, reason)
	return ms, nil
}

func (m *libvirtMachine) Pause(ctx context.Context) error {
	return m.act("pause", func() error { return m.lv.DomainSuspend(m.dom) })
}

func (m *libvirtMachine) Resume(ctx context.Context) error {
	return m.act("resume", func() error {
		st, _, err := m.lv.DomainGetState(m.dom, 0)
		if err == nil && libvirt.DomainState(st) == libvirt.DomainPmsuspended {
			return m.lv.DomainPmWakeup(m.dom, 0)
		}
		return m.lv.DomainResume(m.dom)
	})
}

func (m *libvirtMachine) Power(ctx context.Context) error {
	return m.act("press the power button", func() error { return m.lv.DomainShutdown(m.dom) })
}

func (m *libvirtMachine) Reset(ctx context.Context) error {
	return m.act("reset", func() error { return m.lv.DomainReset(m.dom, 0) })
}

func (m *libvirtMachine) Stop(ctx context.Context) error {
	return m.act("stop", func() error { return m.lv.DomainDestroy(m.dom) })
}

func (m *libvirtMachine) Start(ctx context.Context) error {
	return m.act("start", func() error { return m.lv.DomainCreate(m.dom) })
}

// snapXML is the part of a snapshot's description dvv reads.
type snapXML struct {
	XMLName      xml.Name `xml:"domainsnapshot"`
	Name         string   `xml:"name"`
	State        string   `xml:"state,omitempty"`
	CreationTime int64    `xml:"creationTime,omitempty"`
	Memory       *struct {
		Snapshot string `xml:"snapshot,attr"`
	} `xml:"memory,omitempty"`
}

func (s snapXML) wire() wire.Snapshot {
	// A snapshot of a running (or paused) domain holds its memory unless
	// its description says no.
	mem := s.State == "running" || s.State == "paused"
	if s.Memory != nil && s.Memory.Snapshot == "no" {
		mem = false
	}
	return wire.Snapshot{Name: s.Name, CreatedMs: s.CreationTime * 1000, Memory: mem, State: s.State}
}

func (m *libvirtMachine) SnapshotCreate(ctx context.Context, name string) (bool, error) {
	if err := CheckSnapshotName(name); err != nil {
		return false, err
	}
	b, _ := xml.Marshal(snapXML{Name: name})
	var snap libvirt.DomainSnapshot
	err := m.act("take a snapshot", func() error {
		var err error
		snap, err = m.lv.DomainSnapshotCreateXML(m.dom, string(b), 0)
		return err
	})
	if err != nil {
		return false, err
	}
	s, err := m.describe(snap)
	if err != nil {
		return false, err
	}
	return s.Memory, nil
}

func (m *libvirtMachine) describe(snap libvirt.DomainSnapshot) (wire.Snapshot, error) {
	desc, err := m.lv.DomainSnapshotGetXMLDesc(snap, 0)
	if err != nil {
		return wire.Snapshot{}, unreachable(m.spec, err)
	}
	var x snapXML
	if err := xml.NewDecoder(strings.NewReader(desc)).Decode(&x); err != nil {
		return wire.Snapshot{}, unreachable(m.spec, err)
	}
	return x.wire(), nil
}

func (m *libvirtMachine) Snapshots(ctx context.Context) ([]wire.Snapshot, error) {
	snaps, _, err := m.lv.DomainListAllSnapshots(m.dom, 1, 0)
	if err != nil {
		return nil, unreachable(m.spec, err)
	}
	list := []wire.Snapshot{}
	for _, s := range snaps {
		w, err := m.describe(s)
		if err != nil {
			return nil, err
		}
		list = append(list, w)
	}
	return list, nil
}

func (m *libvirtMachine) lookup(name string) (libvirt.DomainSnapshot, error) {
	if err := CheckSnapshotName(name); err != nil {
		return libvirt.DomainSnapshot{}, err
	}
	snap, err := m.lv.DomainSnapshotLookupByName(m.dom, name, 0)
	if err != nil {
		if lverr(err) == libvirt.ErrNoDomainSnapshot {
			return snap, noSnapshot(m.spec, name)
		}
		return snap, unreachable(m.spec, err)
	}
	return snap, nil
}

func (m *libvirtMachine) SnapshotRestore(ctx context.Context, name string) error {
	snap, err := m.lookup(name)
	if err != nil {
		return err
	}
	return m.act("restore a snapshot", func() error { return m.lv.DomainRevertToSnapshot(snap, 0) })
}

func (m *libvirtMachine) SnapshotDelete(ctx context.Context, name string) error {
	snap, err := m.lookup(name)
	if err != nil {
		return err
	}
	return m.act("delete a snapshot", func() error { return m.lv.DomainSnapshotDelete(snap, 0) })
}
