// Package discovery lists machines that announce themselves on the local
// network over mDNS/DNS-SD: VNC (_rfb._tcp), SSH (_ssh._tcp) and RDP
// (_rdp._tcp). It asks the system's Avahi daemon over D-Bus (the system bus,
// or DBUS_SYSTEM_BUS_ADDRESS), keeps the list fresh from Avahi's signals
// while it runs, and looks for Avahi again every few seconds when it is
// missing or restarts. Without Avahi the list is empty and a note says why;
// that is never an error.
package discovery

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"sync"
	"time"

	"github.com/dvvhq/dvv/pkg/wire"
)

// Host is a discovered machine: Source "mdns", ID "mdns-" + 8 hex digits
// derived from the service's type, name and domain (stable while the
// service keeps its name). HasCredential is always false here.
type Host = wire.Host

// ServiceTypes maps the DNS-SD service types browsed to dvv protocols.
var ServiceTypes = func() map[string]string {
	m := map[string]string{}
	for _, p := range wire.Protocols {
		if p.Service != "" {
			m[p.Service] = p.Name
		}
	}
	return m
}()

// PollInterval is how often a Browser looks for Avahi while it is missing.
var PollInterval = 5 * time.Second

// CallTimeout bounds each call to Avahi (resolving a service included).
var CallTimeout = 5 * time.Second

// Browser keeps the list of discovered services.
type Browser struct {
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	services map[serviceKey]*service
	note     string
}

// serviceKey identifies one announcement as Avahi reports it: the same
// service seen on two interfaces or over IPv4 and IPv6 is two keys.
type serviceKey struct {
	iface, proto        int32
	name, stype, domain string
}

type service struct {
	key      serviceKey
	resolved bool
	address  string
	port     int
	hostname string
}

// Start begins browsing in the background until ctx ends or Close.
func Start(ctx context.Context) *Browser {
	ctx, cancel := context.WithCancel(ctx)
	b := &Browser{cancel: cancel, done: make(chan struct{}), services: map[serviceKey]*service{},
		note: "mDNS discovery is starting; ask again in a moment"}
	go b.run(ctx)
	return b
}

// Close stops browsing and waits for the background work to end.
func (b *Browser) Close() {
	b.cancel()
	<-b.done
}

// maxServiceName bounds a discovered name as DNS-SD does an instance
// name (63 bytes), with room for a name cut mid-character by a server.
const maxServiceName = 64

// List returns the resolved services, one per (type, name, domain), sorted
// by name, and a note saying why the list may be empty or stale ("" when
// browsing works).
func (b *Browser) List() (hosts []Host, note string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	best := map[string]*service{}
	for _, s := range b.services {
		if !s.resolved {
			continue
		}
		id := IDFor(s.key.stype, s.key.name, s.key.domain)
		if cur, ok := best[id]; !ok || better(s, cur) {
			best[id] = s
		}
	}
	hosts = make([]Host, 0, len(best))
	for id, s := range best {
		// Anyone on the network names a service: people read the name
		// (hosts, the viewer, an agent's tool answer), so its unprintable
		// characters (an escape sequence, a newline) become '?'.
		hosts = append(hosts, Host{ID: id, Name: wire.CleanLabel(s.key.name, maxServiceName), Protocol: ServiceTypes[s.key.stype],
			Address: s.address, Port: s.port, Source: "mdns"})
	}
	sort.Slice(hosts, func(i, j int) bool {
		if hosts[i].Name != hosts[j].Name {
			return hosts[i].Name < hosts[j].Name
		}
		return hosts[i].Protocol < hosts[j].Protocol
	})
	return hosts, b.note
}

// Get finds a discovered host by id.
func (b *Browser) Get(id string) (Host, bool) {
	hosts, _ := b.List()
	for _, h := range hosts {
		if h.ID == id {
			return h, true
		}
	}
	return Host{}, false
}

// better prefers IPv4 (dialable without a zone) and then the lower
// interface index, so the choice is stable.
func better(a, b *service) bool {
	if a.key.proto != b.key.proto {
		return a.key.proto == protoINET
	}
	return a.key.iface < b.key.iface
}

// IDFor is a discovered service's id.
func IDFor(serviceType, name, domain string) string {
	sum := sha256.Sum256([]byte(serviceType + "\x00" + name + "\x00" + domain))
	return "mdns-" + hex.EncodeToString(sum[:4])
}

func (b *Browser) setNote(n string) {
	b.mu.Lock()
	b.note = n
	b.mu.Unlock()
}

func (b *Browser) clear(note string) {
	b.mu.Lock()
	b.services = map[serviceKey]*service{}
	b.note = note
	b.mu.Unlock()
}

// run connects, browses until Avahi or the bus goes away, and tries again.
func (b *Browser) run(ctx context.Context) {
	defer close(b.done)
	for {
		reason := b.browse(ctx)
		if ctx.Err() != nil {
			return
		}
		b.clear(reason)
		select {
		case <-ctx.Done():
			return
		case <-time.After(PollInterval):
		}
	}
}
