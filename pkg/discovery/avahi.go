package discovery

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/godbus/dbus/v5"
)

// Avahi's D-Bus API (avahi-daemon's org.freedesktop.Avahi.*.xml).
const (
	avahiName    = "org.freedesktop.Avahi"
	avahiServer  = "org.freedesktop.Avahi.Server"
	avahiBrowser = "org.freedesktop.Avahi.ServiceBrowser"
	ifUnspec     = int32(-1)
	protoUnspec  = int32(-1)
	protoINET    = int32(0)
	resolveTries = 3
)

const retryHint = "; dvv looks for it again every few seconds"

// browse runs one session with Avahi and returns why it ended.
func (b *Browser) browse(ctx context.Context) string {
	conn, err := dbus.ConnectSystemBus(dbus.WithContext(ctx))
	if err != nil {
		return fmt.Sprintf("mDNS discovery is off: the D-Bus system bus is not reachable (%v)%s", err, retryHint)
	}
	defer conn.Close()

	// Subscribe before creating browsers: Avahi may announce items as soon
	// as a browser exists.
	signals := make(chan *dbus.Signal, 4096)
	conn.Signal(signals)
	defer conn.RemoveSignal(signals)
	if err := conn.AddMatchSignal(dbus.WithMatchInterface(avahiBrowser)); err != nil {
		return fmt.Sprintf("mDNS discovery is off: cannot watch Avahi's signals (%v)%s", err, retryHint)
	}
	if err := conn.AddMatchSignal(dbus.WithMatchSender("org.freedesktop.DBus"), dbus.WithMatchInterface("org.freedesktop.DBus"),
		dbus.WithMatchMember("NameOwnerChanged"), dbus.WithMatchArg(0, avahiName)); err != nil {
		return fmt.Sprintf("mDNS discovery is off: cannot watch for Avahi restarts (%v)%s", err, retryHint)
	}

	server := conn.Object(avahiName, "/")
	var version string
	if err := callCtx(ctx, server, avahiServer+".GetVersionString").Store(&version); err != nil {
		return notRunning(err)
	}

	browsers := map[dbus.ObjectPath]string{}
	for stype := range ServiceTypes {
		var path dbus.ObjectPath
		err := callCtx(ctx, server, avahiServer+".ServiceBrowserNew", ifUnspec, protoUnspec, stype, "", uint32(0)).Store(&path)
		if err != nil {
			return notRunning(err)
		}
		browsers[path] = stype
	}
	b.setNote("")

	resolveCtx, stopResolves := context.WithCancel(ctx)
	defer stopResolves()
	for {
		select {
		case <-ctx.Done():
			return ""
		case sig, ok := <-signals:
			if !ok {
				return "mDNS discovery is paused: the connection to the D-Bus system bus closed" + retryHint
			}
			if sig.Name == "org.freedesktop.DBus.NameOwnerChanged" {
				if len(sig.Body) == 3 {
					if newOwner, _ := sig.Body[2].(string); newOwner == "" {
						return "mDNS discovery is paused: avahi-daemon left the system bus" + retryHint
					}
				}
				continue
			}
			stype, mine := browsers[sig.Path]
			if !mine {
				continue
			}
			switch sig.Name {
			case avahiBrowser + ".ItemNew":
				if key, ok := itemKey(sig.Body, stype); ok {
					b.itemNew(resolveCtx, server, key)
				}
			case avahiBrowser + ".ItemRemove":
				if key, ok := itemKey(sig.Body, stype); ok {
					b.mu.Lock()
					delete(b.services, key)
					b.mu.Unlock()
				}
			case avahiBrowser + ".Failure":
				msg := ""
				if len(sig.Body) > 0 {
					msg, _ = sig.Body[0].(string)
				}
				return "mDNS discovery is paused: Avahi reported a browse failure (" + msg + ")" + retryHint
			}
		}
	}
}

func notRunning(err error) string {
	var de dbus.Error
	if errors.As(err, &de) && (de.Name == "org.freedesktop.DBus.Error.ServiceUnknown" || de.Name == "org.freedesktop.DBus.Error.NameHasNoOwner") {
		return "mDNS discovery is off: Avahi (avahi-daemon) is not running on the system bus; start it (e.g. `systemctl start avahi-daemon`)" + retryHint
	}
	return fmt.Sprintf("mDNS discovery is off: Avahi did not answer (%v)%s", err, retryHint)
}

func callCtx(ctx context.Context, obj dbus.BusObject, method string, args ...any) *dbus.Call {
	ctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	return obj.CallWithContext(ctx, method, 0, args...)
}

// itemKey reads ItemNew/ItemRemove's (interface, protocol, name, type,
// domain, flags). Malformed bodies are ignored.
func itemKey(body []any, browsedType string) (serviceKey, bool) {
	if len(body) < 5 {
		return serviceKey{}, false
	}
	iface, ok1 := body[0].(int32)
	proto, ok2 := body[1].(int32)
	name, ok3 := body[2].(string)
	stype, ok4 := body[3].(string)
	domain, ok5 := body[4].(string)
	if !(ok1 && ok2 && ok3 && ok4 && ok5) || stype != browsedType || len(name) > 255 || len(domain) > 255 {
		return serviceKey{}, false
	}
	return serviceKey{iface: iface, proto: proto, name: name, stype: stype, domain: domain}, true
}

// itemNew records an announcement and resolves it in the background.
func (b *Browser) itemNew(ctx context.Context, server dbus.BusObject, key serviceKey) {
	s := &service{key: key}
	b.mu.Lock()
	if _, dup := b.services[key]; dup {
		b.mu.Unlock()
		return
	}
	b.services[key] = s
	b.mu.Unlock()
	go b.resolve(ctx, server, s)
}

func (b *Browser) resolve(ctx context.Context, server dbus.BusObject, s *service) {
	k := s.key
	for try := 0; try < resolveTries; try++ {
		var (
			iface, proto, aproto      int32
			name, stype, domain, host string
			address                   string
			port                      uint16
			txt                       [][]byte
			flags                     uint32
		)
		err := callCtx(ctx, server, avahiServer+".ResolveService", k.iface, k.proto, k.name, k.stype, k.domain, k.proto, uint32(0)).
			Store(&iface, &proto, &name, &stype, &domain, &host, &aproto, &address, &port, &txt, &flags)
		if err == nil {
			b.mu.Lock()
			if b.services[k] == s { // still announced
				s.resolved, s.address, s.port, s.hostname = true, address, int(port), host
			}
			b.mu.Unlock()
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
		b.mu.Lock()
		gone := b.services[k] != s
		b.mu.Unlock()
		if gone {
			return
		}
	}
}
