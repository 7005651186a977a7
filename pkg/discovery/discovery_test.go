package discovery

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/wire"
)

func fastPolling(t *testing.T) {
	old := PollInterval
	PollInterval = 200 * time.Millisecond
	t.Cleanup(func() { PollInterval = old })
}

// kill ends a started process group at once. (testbed.Proc.Kill polls
// ProcessState, which races with the Wait in testbed.Start under -race.)
func kill(p *testbed.Proc) {
	syscall.Kill(-p.Cmd.Process.Pid, syscall.SIGKILL)
}

func find(b *Browser, name, protocol string) (Host, bool) {
	hosts, _ := b.List()
	for _, h := range hosts {
		if h.Name == name && h.Protocol == protocol {
			return h, true
		}
	}
	return Host{}, false
}

func TestPublishedServicesAppearAndGo(t *testing.T) {
	fastPolling(t)
	av := testbed.StartAvahi(t)
	b := Start(context.Background())
	defer b.Close()

	vncPort, sshPort, rdpPort := testbed.FreePort(t), testbed.FreePort(t), testbed.FreePort(t)
	vnc := av.Publish(t, "dvv-lab", "_rfb._tcp", vncPort)
	av.Publish(t, "dvv-shell", "_ssh._tcp", sshPort)
	av.Publish(t, "dvv-win", "_rdp._tcp", rdpPort)

	for _, want := range []struct {
		name, proto string
		port        int
	}{{"dvv-lab", wire.ProtoVNC, vncPort}, {"dvv-shell", wire.ProtoSSH, sshPort}, {"dvv-win", wire.ProtoRDP, rdpPort}} {
		testbed.Eventually(t, 15*time.Second, want.name+" in the discovered list", func() bool {
			_, ok := find(b, want.name, want.proto)
			return ok
		})
		h, _ := find(b, want.name, want.proto)
		if h.Port != want.port || h.Address != "127.0.0.1" || h.Source != "mdns" || !strings.HasPrefix(h.ID, "mdns-") || h.HasCredential {
			t.Fatalf("%s: %+v", want.name, h)
		}
		if got, ok := b.Get(h.ID); !ok || got != h {
			t.Fatalf("Get(%s) = %+v, %v", h.ID, got, ok)
		}
	}
	if _, note := b.List(); note != "" {
		t.Fatalf("note while browsing works: %q", note)
	}

	kill(vnc)
	testbed.Eventually(t, 15*time.Second, "dvv-lab to leave the list", func() bool {
		_, ok := find(b, "dvv-lab", wire.ProtoVNC)
		return !ok
	})
	if _, ok := find(b, "dvv-shell", wire.ProtoSSH); !ok {
		t.Fatal("removing one service removed another")
	}

	// avahi-daemon going away empties the list with a reason; coming back
	// is noticed without restarting the browser.
	kill(av.Daemon)
	testbed.Eventually(t, 10*time.Second, "a note after avahi-daemon died", func() bool {
		hosts, note := b.List()
		return len(hosts) == 0 && strings.Contains(note, "avahi")
	})
	av.StartDaemon(t, "")
	av.Publish(t, "dvv-later", "_rfb._tcp", vncPort)
	testbed.Eventually(t, 20*time.Second, "a service published after Avahi restarted", func() bool {
		_, ok := find(b, "dvv-later", wire.ProtoVNC)
		return ok
	})
}

func TestNoSystemBus(t *testing.T) {
	fastPolling(t)
	t.Setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path="+t.TempDir()+"/none")
	b := Start(context.Background())
	defer b.Close()
	testbed.Eventually(t, 5*time.Second, "a note saying the system bus is missing", func() bool {
		hosts, note := b.List()
		return len(hosts) == 0 && strings.Contains(note, "system bus is not reachable")
	})
}

func TestNoAvahiOnTheBus(t *testing.T) {
	fastPolling(t)
	t.Setenv("DBUS_SYSTEM_BUS_ADDRESS", testbed.StartBareSessionBus(t))
	b := Start(context.Background())
	defer b.Close()
	testbed.Eventually(t, 5*time.Second, "a note saying Avahi is not running", func() bool {
		hosts, note := b.List()
		return len(hosts) == 0 && strings.Contains(note, "Avahi (avahi-daemon) is not running")
	})
}

func TestCloseEndsPromptly(t *testing.T) {
	t.Setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path="+t.TempDir()+"/none")
	ctx, cancel := context.WithCancel(context.Background())
	b := Start(ctx)
	cancel()
	<-b.done // the background loop ends with its context
	b.Close()
}

func TestItemKeyRejectsMalformedBodies(t *testing.T) {
	good := []any{int32(1), int32(0), "lab", "_rfb._tcp", "local", uint32(0)}
	if _, ok := itemKey(good, "_rfb._tcp"); !ok {
		t.Fatal("good body refused")
	}
	for i, body := range [][]any{
		nil,
		good[:4],
		{"1", int32(0), "lab", "_rfb._tcp", "local"},
		{int32(1), int32(0), 7, "_rfb._tcp", "local"},
		{int32(1), int32(0), "lab", "_ssh._tcp", "local"}, // not the browsed type
		{int32(1), int32(0), strings.Repeat("x", 300), "_rfb._tcp", "local"},
	} {
		if _, ok := itemKey(body, "_rfb._tcp"); ok {
			t.Errorf("body %d accepted", i)
		}
	}
}

func TestListPrefersIPv4AndDedups(t *testing.T) {
	b := &Browser{services: map[serviceKey]*service{}}
	add := func(iface, proto int32, addr string, resolved bool) {
		k := serviceKey{iface: iface, proto: proto, name: "lab", stype: "_rfb._tcp", domain: "local"}
		b.services[k] = &service{key: k, resolved: resolved, address: addr, port: 5900}
	}
	add(2, 1, "fe80::1", true)
	add(3, 0, "10.0.0.3", true)
	add(2, 0, "10.0.0.2", true)
	add(1, 0, "10.0.0.1", false) // not resolved yet: not listed
	hosts, _ := b.List()
	if len(hosts) != 1 || hosts[0].Address != "10.0.0.2" || hosts[0].ID != IDFor("_rfb._tcp", "lab", "local") {
		t.Fatalf("List = %+v", hosts)
	}
}
