//go:build !darwin

package keychain

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// The Secret Service API (freedesktop.org), as names on the bus.
const (
	ssName          = "org.freedesktop.secrets"
	ssPath          = dbus.ObjectPath("/org/freedesktop/secrets")
	ssService       = "org.freedesktop.Secret.Service"
	ssCollection    = "org.freedesktop.Secret.Collection"
	ssItem          = "org.freedesktop.Secret.Item"
	ssPrompt        = "org.freedesktop.Secret.Prompt"
	ssItemLabel     = "org.freedesktop.Secret.Item.Label"
	ssItemAttrs     = "org.freedesktop.Secret.Item.Attributes"
	ssContentType   = "text/plain; charset=utf8"
	noPrompt        = dbus.ObjectPath("/")
	secretLengthCap = 64 << 10
)

// Time limits. CallTimeout bounds every bus call; PromptTimeout bounds how
// long an unlock prompt on the user's desktop may take before dvv gives up
// and says the keychain is locked.
var (
	CallTimeout   = 10 * time.Second
	PromptTimeout = 30 * time.Second
)

// secretValue is the Secret Service's Secret struct (oayays).
type secretValue struct {
	Session     dbus.ObjectPath
	Parameters  []byte
	Value       []byte
	ContentType string
}

// secretService talks to the Secret Service on the session bus. It opens a
// "plain" session: the secret crosses the user's own session bus
// unencrypted, which only processes of this user can read (see
// docs/security.md). Operations are serialized; they are rare.
type secretService struct {
	mu      sync.Mutex
	conn    *dbus.Conn
	session dbus.ObjectPath
}

// OpenLazy returns a Keychain that connects on first use (and after any
// failure), so a daemon started before the user's keyring still finds it
// later; with no keychain, each call fails with *UnavailableError.
func OpenLazy() Keychain { return &secretService{} }

func sessionBusAddress() (string, error) {
	if a := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" && a != "autolaunch:" {
		return a, nil
	}
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" {
		p := filepath.Join(rt, "bus")
		if st, err := os.Stat(p); err == nil && st.Mode()&os.ModeSocket != 0 {
			return "unix:path=" + p, nil
		}
	}
	return "", &UnavailableError{
		Reason: "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is unset and $XDG_RUNTIME_DIR/bus does not exist)",
		Fix:    fixHint,
	}
}

const fixHint = "Run dvvd inside a desktop session, or start a bus and a Secret Service provider for it: " +
	"`eval $(dbus-launch --sh-syntax)` then `gnome-keyring-daemon --unlock --components=secrets` (it reads the keyring password on stdin), " +
	"and give dvvd the same DBUS_SESSION_BUS_ADDRESS; or, without a keyring, put a HOST:PASSWORD line in " +
	"~/.config/dvv/credentials (mode 0600), which dvvd reads (docs/security.md)"

// ensure connects and opens a session; s.mu is held.
func (s *secretService) ensure() error {
	if s.conn != nil && s.conn.Connected() {
		return nil
	}
	s.reset()
	addr, err := sessionBusAddress()
	if err != nil {
		return err
	}
	conn, err := dbus.Connect(addr)
	if err != nil {
		return &UnavailableError{Reason: fmt.Sprintf("cannot reach the D-Bus session bus at %s (%v)", addr, err), Fix: fixHint}
	}
	var out dbus.Variant
	var session dbus.ObjectPath
	err = s.callOn(conn, conn.Object(ssName, ssPath), ssService+".OpenSession", "plain", dbus.MakeVariant("")).Store(&out, &session)
	if err != nil {
		conn.Close()
		return unavailable("open a Secret Service session", err, "")
	}
	s.conn, s.session = conn, session
	return nil
}

// reset drops the connection; s.mu is held.
func (s *secretService) reset() {
	if s.conn != nil {
		s.conn.Close()
	}
	s.conn, s.session = nil, ""
}

func (s *secretService) callOn(conn *dbus.Conn, obj dbus.BusObject, method string, args ...any) *dbus.Call {
	ctx, cancel := context.WithTimeout(context.Background(), CallTimeout)
	defer cancel()
	return obj.CallWithContext(ctx, method, 0, args...)
}

func (s *secretService) call(path dbus.ObjectPath, method string, args ...any) *dbus.Call {
	return s.callOn(s.conn, s.conn.Object(ssName, path), method, args...)
}

// unavailable turns a bus failure into *UnavailableError with a reason
// that names the failing step; secret is scrubbed from foreign text.
func unavailable(step string, err error, secret string) error {
	var de dbus.Error
	if errors.As(err, &de) {
		switch de.Name {
		case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
			"org.freedesktop.DBus.Error.Spawn.ChildExited", "org.freedesktop.DBus.Error.Spawn.Failed":
			return &UnavailableError{Reason: "no Secret Service provider answers on the session bus (" + de.Name + ")", Fix: fixHint}
		}
		return &UnavailableError{Reason: scrub(fmt.Sprintf("%s failed: %s %v", step, de.Name, de.Body), secret), Fix: fixHint}
	}
	return &UnavailableError{Reason: scrub(fmt.Sprintf("%s failed: %v", step, err), secret), Fix: fixHint}
}

// defaultCollection returns the "default" alias, unlocked; s.mu is held.
func (s *secretService) defaultCollection() (dbus.ObjectPath, error) {
	var coll dbus.ObjectPath
	if err := s.call(ssPath, ssService+".ReadAlias", "default").Store(&coll); err != nil {
		return "", unavailable("read the default collection", err, "")
	}
	if coll == noPrompt || coll == "" {
		return "", &UnavailableError{
			Reason: "the Secret Service has no default collection (keyring)",
			Fix:    "Create a default keyring (e.g. in Seahorse, or by starting gnome-keyring-daemon with --unlock)",
		}
	}
	locked, err := s.conn.Object(ssName, coll).GetProperty(ssCollection + ".Locked")
	if err != nil {
		return "", unavailable("read whether the keyring is locked", err, "")
	}
	if l, _ := locked.Value().(bool); l {
		if err := s.unlock([]dbus.ObjectPath{coll}); err != nil {
			return "", err
		}
	}
	return coll, nil
}

// unlock asks the provider to unlock collections or items, which may show
// a prompt on the user's desktop; s.mu is held.
func (s *secretService) unlock(objects []dbus.ObjectPath) error {
	var unlocked []dbus.ObjectPath
	var prompt dbus.ObjectPath
	if err := s.call(ssPath, ssService+".Unlock", objects).Store(&unlocked, &prompt); err != nil {
		return unavailable("unlock the keyring", err, "")
	}
	if len(unlocked) == len(objects) {
		return nil
	}
	if prompt == noPrompt {
		return lockedError("the provider refused to unlock it")
	}
	dismissed, err := s.runPrompt(prompt)
	if err != nil {
		return err
	}
	if dismissed {
		return lockedError("the unlock prompt was dismissed")
	}
	return nil
}

func lockedError(why string) error {
	return &UnavailableError{
		Reason: "the keyring is locked and " + why,
		Fix:    "Unlock it (log in to the desktop, open Seahorse, or start gnome-keyring-daemon with --unlock reading the password on stdin), then retry",
	}
}

// runPrompt shows a Secret Service prompt and waits for it to complete;
// s.mu is held. It reports whether the user dismissed it.
func (s *secretService) runPrompt(prompt dbus.ObjectPath) (dismissed bool, err error) {
	match := []dbus.MatchOption{dbus.WithMatchObjectPath(prompt), dbus.WithMatchInterface(ssPrompt), dbus.WithMatchMember("Completed")}
	if err := s.conn.AddMatchSignal(match...); err != nil {
		return false, unavailable("watch the unlock prompt", err, "")
	}
	defer s.conn.RemoveMatchSignal(match...)
	ch := make(chan *dbus.Signal, 4)
	s.conn.Signal(ch)
	defer s.conn.RemoveSignal(ch)
	if err := s.call(prompt, ssPrompt+".Prompt", "").Err; err != nil {
		return false, unavailable("show the unlock prompt", err, "")
	}
	timer := time.NewTimer(PromptTimeout)
	defer timer.Stop()
	for {
		select {
		case sig, ok := <-ch:
			if !ok {
				return false, lockedError("the bus closed during the prompt")
			}
			if sig.Path != prompt || sig.Name != ssPrompt+".Completed" || len(sig.Body) < 1 {
				continue
			}
			d, _ := sig.Body[0].(bool)
			return d, nil
		case <-timer.C:
			s.call(prompt, ssPrompt+".Dismiss")
			return false, lockedError(fmt.Sprintf("nobody answered the unlock prompt within %v", PromptTimeout))
		}
	}
}

func attrs(hostID string) map[string]string {
	return map[string]string{AttrApplication: Application, AttrHost: hostID, AttrKind: KindPassword}
}

// do runs op with a live connection, retrying once on a fresh connection
// if the first one had died.
func (s *secretService) do(op func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		if err = s.ensure(); err != nil {
			return err
		}
		err = op()
		if err == nil || s.conn.Connected() {
			return err
		}
		s.reset()
	}
	return err
}

// find searches every collection and unlocks what it found when needed;
// s.mu is held.
func (s *secretService) find(hostID string) ([]dbus.ObjectPath, error) {
	var unlocked, locked []dbus.ObjectPath
	if err := s.call(ssPath, ssService+".SearchItems", attrs(hostID)).Store(&unlocked, &locked); err != nil {
		return nil, unavailable("search the keyring", err, "")
	}
	if len(locked) > 0 {
		if err := s.unlock(locked); err != nil {
			return nil, err
		}
		unlocked = append(unlocked, locked...)
	}
	return unlocked, nil
}

func (s *secretService) Get(hostID string) (string, error) {
	if err := checkHostID(hostID); err != nil {
		return "", err
	}
	var secret string
	err := s.do(func() error {
		items, err := s.find(hostID)
		if err != nil {
			return err
		}
		if len(items) == 0 {
			return ErrNotFound
		}
		var v secretValue
		if err := s.call(items[0], ssItem+".GetSecret", s.session).Store(&v); err != nil {
			return unavailable("read the secret", err, "")
		}
		if len(v.Value) > secretLengthCap {
			return &UnavailableError{Reason: "the stored secret is implausibly long", Fix: "Store it again with dvv hosts add … --password-stdin"}
		}
		secret = string(v.Value)
		return nil
	})
	return secret, err
}

// Set stores into the default collection, unlocking it when needed.
func (s *secretService) Set(hostID, label, secret string) error {
	if err := checkHostID(hostID); err != nil {
		return err
	}
	if len(secret) > secretLengthCap {
		return fmt.Errorf("a secret of %d bytes is over the %d-byte limit", len(secret), secretLengthCap)
	}
	if label == "" {
		label = "dvv " + hostID
	}
	return s.do(func() error {
		coll, err := s.defaultCollection()
		if err != nil {
			return err
		}
		props := map[string]dbus.Variant{
			ssItemLabel: dbus.MakeVariant(label),
			ssItemAttrs: dbus.MakeVariant(attrs(hostID)),
		}
		v := secretValue{Session: s.session, Parameters: []byte{}, Value: []byte(secret), ContentType: ssContentType}
		var item, prompt dbus.ObjectPath
		if err := s.call(coll, ssCollection+".CreateItem", props, v, true).Store(&item, &prompt); err != nil {
			return unavailable("store the secret", err, secret)
		}
		if prompt != noPrompt {
			dismissed, err := s.runPrompt(prompt)
			if err != nil {
				return err
			}
			if dismissed {
				return lockedError("the prompt to store the secret was dismissed")
			}
		}
		return nil
	})
}

// Delete removes every item of the host, in any collection.
func (s *secretService) Delete(hostID string) error {
	if err := checkHostID(hostID); err != nil {
		return err
	}
	return s.do(func() error {
		items, err := s.find(hostID)
		if err != nil {
			return err
		}
		for _, it := range items {
			var prompt dbus.ObjectPath
			if err := s.call(it, ssItem+".Delete").Store(&prompt); err != nil {
				return unavailable("delete the secret", err, "")
			}
			if prompt != noPrompt {
				if dismissed, err := s.runPrompt(prompt); err != nil || dismissed {
					return lockedError("the prompt to delete the secret was not accepted")
				}
			}
		}
		return nil
	})
}

// Has asks the service itself, which lists locked items too, so a locked
// keyring is not unlocked (and no prompt shown) just to list hosts.
func (s *secretService) Has(hostID string) bool {
	if checkHostID(hostID) != nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for attempt := 0; attempt < 2; attempt++ {
		if s.ensure() != nil {
			return false
		}
		var unlocked, locked []dbus.ObjectPath
		err := s.call(ssPath, ssService+".SearchItems", attrs(hostID)).Store(&unlocked, &locked)
		if err == nil {
			return len(unlocked)+len(locked) > 0
		}
		if s.conn.Connected() {
			return false
		}
		s.reset()
	}
	return false
}
