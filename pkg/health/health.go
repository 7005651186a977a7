// Package health runs dvvd's half of `dvv doctor`: whether what dvvd depends
// on answers from dvvd's own environment (a daemon under systemd sees
// another session bus, agent socket and home than the shell that asks).
// Every check ends in a wire.HealthCheck with a fix; none reads or returns a
// secret.
package health

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/keychain"
	"github.com/dvvhq/dvv/pkg/sshx/sshconfig"
	"github.com/dvvhq/dvv/pkg/wire"
)

// Env is what the checks look at. Nil fields are skipped with a reason.
type Env struct {
	Keychain  keychain.Keychain
	Saved     []hosts.Host // saved hosts (not ssh_config or mDNS ones)
	SSHConfig string       // path of ~/.ssh/config ("" = none configured)
	// Discovery reports the mDNS browser's note ("" when browsing works);
	// nil when dvvd was started without discovery.
	Discovery func() string
	// HostKey compares an SSH endpoint's host key with known_hosts without
	// writing: nil when trusted, an error saying unknown/changed otherwise.
	HostKey func(ctx context.Context, address string, port int, user string) (fingerprint string, err error)
	// Pinned tells whether a TLS certificate is pinned for host:port.
	Pinned func(hostport string) bool
	// SSHAgent is the agent socket dvvd would use ("" = $SSH_AUTH_SOCK).
	SSHAgent string
	// Timeout bounds each network check (default 3 s).
	Timeout time.Duration
}

// probeHostID names no host: Get on it answers "not found" from a working
// keychain, so reachability is learnt without reading any secret.
const probeHostID = "h-doctor-probe"

// Run performs every check, the network ones concurrently, and returns them
// in a stable order.
func Run(ctx context.Context, e Env) []wire.HealthCheck {
	if e.Timeout <= 0 {
		e.Timeout = 3 * time.Second
	}
	out := []wire.HealthCheck{checkKeychain(e), checkDiscovery(e), checkAgent(e), checkSSHConfig(e)}
	hostChecks := make([]wire.HealthCheck, len(e.Saved))
	var wg sync.WaitGroup
	for i, h := range e.Saved {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hostChecks[i] = checkHost(ctx, e, h)
		}()
	}
	wg.Wait()
	return append(out, hostChecks...)
}

func checkKeychain(e Env) wire.HealthCheck {
	c := wire.HealthCheck{Name: "keychain"}
	if e.Keychain == nil {
		c.Status, c.Detail = wire.HealthSkip, "dvvd runs without a keychain"
		return c
	}
	_, err := e.Keychain.Get(probeHostID)
	var ue *keychain.UnavailableError
	switch {
	case err == nil, errors.Is(err, keychain.ErrNotFound):
		c.Status, c.Detail = wire.HealthOK, "the keychain answers from dvvd's session"
	case errors.As(err, &ue):
		c.Status, c.Detail, c.Fix = wire.HealthFail, ue.Reason, ue.Fix
	default:
		c.Status, c.Detail = wire.HealthFail, err.Error()
		c.Fix = "saved passwords cannot be read until the keychain answers; see docs/security.md"
	}
	return c
}

func checkDiscovery(e Env) wire.HealthCheck {
	c := wire.HealthCheck{Name: "mdns"}
	if e.Discovery == nil {
		c.Status, c.Detail = wire.HealthSkip, "dvvd was started with --no-discovery"
		return c
	}
	if note := e.Discovery(); note != "" {
		c.Status, c.Detail = wire.HealthWarn, note
		c.Fix = "start avahi-daemon (systemctl start avahi-daemon) to list machines on the network; everything else works without it"
		return c
	}
	c.Status, c.Detail = wire.HealthOK, "browsing mDNS through Avahi"
	return c
}

func checkAgent(e Env) wire.HealthCheck {
	c := wire.HealthCheck{Name: "ssh-agent"}
	sock := e.SSHAgent
	if sock == "" {
		sock = os.Getenv("SSH_AUTH_SOCK")
	}
	if sock == "" {
		c.Status, c.Detail = wire.HealthWarn, "dvvd has no SSH_AUTH_SOCK: only key files and passwords can log in"
		c.Fix = "start dvvd from a session with an agent, or `systemctl --user set-environment SSH_AUTH_SOCK=$SSH_AUTH_SOCK` and restart it"
		return c
	}
	conn, err := net.DialTimeout("unix", sock, e.Timeout)
	if err != nil {
		c.Status, c.Detail = wire.HealthFail, fmt.Sprintf("the agent socket %s does not answer (%v)", sock, errors.Unwrap(err))
		c.Fix = "start ssh-agent and point SSH_AUTH_SOCK at it, then restart dvvd"
		return c
	}
	conn.Close()
	c.Status, c.Detail = wire.HealthOK, "agent at "+sock
	return c
}

func checkSSHConfig(e Env) wire.HealthCheck {
	c := wire.HealthCheck{Name: "ssh-config"}
	if e.SSHConfig == "" {
		c.Status, c.Detail = wire.HealthSkip, "no ~/.ssh/config is read"
		return c
	}
	if _, err := os.Stat(e.SSHConfig); errors.Is(err, os.ErrNotExist) {
		c.Status, c.Detail = wire.HealthOK, e.SSHConfig+" does not exist (nothing to read)"
		return c
	}
	hs, err := hosts.ReadSSHConfigHosts(e.SSHConfig)
	var refused *sshconfig.Error
	switch {
	case errors.As(err, &refused):
		c.Status, c.Detail, c.Fix = wire.HealthFail, err.Error(), "fix that line: ssh refuses this configuration too (check with ssh -G <host>)"
	case err != nil:
		c.Status, c.Detail, c.Fix = wire.HealthFail, err.Error(), "make "+e.SSHConfig+" readable by you"
	default:
		c.Status, c.Detail = wire.HealthOK, fmt.Sprintf("%s: %d host alias(es)", e.SSHConfig, len(hs))
	}
	return c
}

// checkHost dials a saved host's endpoint and, for SSH, compares its key
// with known_hosts; for VNC and RDP it says whether a certificate is pinned
// (the server's use of TLS shows only on a full connect).
func checkHost(ctx context.Context, e Env, h hosts.Host) wire.HealthCheck {
	port := h.Port
	if port == 0 {
		port = hosts.DefaultPort(h.Protocol)
	}
	hp := net.JoinHostPort(h.Address, strconv.Itoa(port))
	c := wire.HealthCheck{Name: "host " + h.Name}
	ctx, cancel := context.WithTimeout(ctx, e.Timeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", hp)
	if err != nil {
		c.Status, c.Detail = wire.HealthFail, fmt.Sprintf("%s %s does not answer (%v)", h.Protocol, hp, errors.Unwrap(err))
		c.Fix = "check that the machine is up and the server listens on " + hp + " (dvv hosts add " + h.Name + " … to change it)"
		return c
	}
	conn.Close()
	switch {
	case h.Protocol == wire.ProtoSSH && e.HostKey != nil:
		fp, err := e.HostKey(ctx, h.Address, port, h.User)
		if err != nil {
			c.Status, c.Detail = wire.HealthFail, fmt.Sprintf("ssh %s answers; %v", hp, err)
			// The key check's own hint: for an unknown key the exact trust
			// command with the address and fingerprint (a saved host's name
			// is no address hosts trust can dial); for a changed one, stop.
			var we *wire.Error
			if errors.As(err, &we) && we.Next != "" {
				c.Fix = we.Next
			} else {
				c.Fix = fmt.Sprintf("verify the fingerprint with the machine's owner, then `dvv hosts trust %s --fingerprint FINGERPRINT`", hp)
			}
			return c
		}
		c.Status, c.Detail = wire.HealthOK, fmt.Sprintf("ssh %s answers; host key %s is trusted", hp, fp)
	case e.Pinned != nil && e.Pinned(hp):
		c.Status, c.Detail = wire.HealthOK, fmt.Sprintf("%s %s answers; its certificate is pinned", h.Protocol, hp)
	default:
		c.Status, c.Detail = wire.HealthOK, fmt.Sprintf("%s %s answers", h.Protocol, hp)
	}
	return c
}
