package daemon

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dvvhq/dvv/pkg/sock"
	"github.com/dvvhq/dvv/pkg/wire"
)

// sessionHint is how to fix a refused attachment name or session key.
var sessionHint = fmt.Sprintf("name the session with printable text on one line, at most %d bytes, e.g. DVV_SESSION=agent-1 (the dvv CLI sends DVV_SESSION or --session as both name and session; an attach request's name and session fields)", wire.MaxNameBytes)

func (d *Daemon) attach(c *conn, req *request) (*attachment, error) {
	grant, err := d.grantFor(req.Token)
	if err != nil {
		return nil, err
	}
	name := req.Name
	if name == "" {
		name = "client"
	}
	// People read the name as a lease's holder, in their terminal too.
	if err := wire.CheckLabel("name", name, wire.MaxNameBytes, sessionHint); err != nil {
		return nil, err
	}
	// Without a session key the attachment is this connection's alone. With
	// one, the key also carries the name and the token, so a second token
	// (or a second agent's name) in the same shell never shares a lease
	// with the first.
	key := fmt.Sprintf("conn:%p", c)
	if req.Session != "" {
		if err := wire.CheckLabel("session", req.Session, wire.MaxSessionBytes, sessionHint); err != nil {
			return nil, err
		}
		key = "session:" + name + ":" + req.Session + ":" + grant.TokenID
		if strings.HasPrefix(req.Session, "pid:") {
			// A process session is one process's: the name the CLI gives
			// it (its command name) changes when that process execs (sh
			// running its last command as bash), and must not split it.
			key = "session::" + req.Session + ":" + grant.TokenID
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	a := d.attachments[key]
	if a == nil {
		a = &attachment{key: key, name: name, session: req.Session, grant: grant, limbs: map[string]bool{}}
		d.attachments[key] = a
	}
	a.conns++
	a.lastSeen = time.Now()
	return a, nil
}

// detach ends a connection's use of an attachment. Connection-bound
// attachments die with their connection.
func (d *Daemon) detach(a *attachment) {
	d.mu.Lock()
	a.conns--
	a.lastSeen = time.Now()
	dead := a.conns <= 0 && a.session == ""
	if dead {
		delete(d.attachments, a.key)
	}
	d.mu.Unlock()
	// Outside d.mu: releasing takes each limb's lock (lock order).
	if dead {
		d.releaseAllLeases(a, "the attachment's connection ended")
	}
}

// expireAttachments ends session attachments whose shell exited or that
// idled past SessionIdle with no connection.
func (d *Daemon) expireAttachments() {
	var dead []*attachment
	d.mu.Lock()
	for k, a := range d.attachments {
		if a.session == "" || a.conns > 0 {
			continue
		}
		if time.Since(a.lastSeen) > d.cfg.SessionIdle || !sessionAlive(a.session) {
			delete(d.attachments, k)
			dead = append(dead, a)
		}
	}
	d.mu.Unlock()
	for _, a := range dead {
		d.releaseAllLeases(a, "the shell session ended or sat idle")
	}
}

// sessionAlive checks a session key of the form "pid:<pid>:<start>" (what
// the CLI derives from its parent shell): alive while that process exists
// with that start time. Other keys ($DVV_SESSION) live until idle.
func sessionAlive(key string) bool {
	parts := strings.Split(key, ":")
	if len(parts) != 3 || parts[0] != "pid" {
		return true
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 {
		return true
	}
	// Signal 0 probes existence; EPERM means it exists under another
	// user, which is still alive for this purpose.
	if err := syscall.Kill(pid, 0); err != nil && err != syscall.EPERM {
		return false
	}
	if st := sock.ProcessStart(pid); st != "" && st != parts[2] {
		return false // the pid was reused
	}
	return true
}

// touch records activity on an attachment.
func (d *Daemon) touch(a *attachment) {
	d.mu.Lock()
	a.lastSeen = time.Now()
	d.mu.Unlock()
}

// releaseAllLeases frees every lease a holds (its connection or session
// ended). Agents waiting in acquire wake up. It also drops a's fences:
// their trackers would otherwise count damage for a gone attachment for
// as long as the limb lives.
func (d *Daemon) releaseAllLeases(a *attachment, reason string) {
	d.mu.Lock()
	limbs := make([]*Limb, 0, len(d.limbs))
	for _, l := range d.limbs {
		limbs = append(limbs, l)
	}
	d.mu.Unlock()
	for _, l := range limbs {
		l.mu.Lock()
		if l.lease.holder == a {
			l.freeLocked(reason)
		}
		delete(l.lease.revoked, a)
		l.part.forgetLocked(a)
		l.mu.Unlock()
	}
}

// releaseToken frees everything held by attachments of a revoked token:
// their leases (so others can acquire) and the attachments themselves.
func (d *Daemon) releaseToken(tokenID string) {
	var gone []*attachment
	d.mu.Lock()
	for k, a := range d.attachments {
		if a.grant.TokenID == tokenID {
			delete(d.attachments, k)
			gone = append(gone, a)
		}
	}
	d.mu.Unlock()
	for _, a := range gone {
		d.releaseAllLeases(a, "the token was revoked")
	}
}
