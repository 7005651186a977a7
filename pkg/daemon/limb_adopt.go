package daemon

import (
	"fmt"
	"strings"

	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// adopt applies a saved host's settings to a limb that was already open
// for the same endpoint (by address, or by another saved host). The SSH
// sidecar takes effect at once (an open SFTP session is dropped and the
// next files call dials the new one); a different login is not switched
// under a live session. It returns what the caller should be told, or "".
func (l *Limb) adopt(t limb.Target) string {
	l.mu.Lock()
	cur := l.target
	var notes []string
	sidecar := false
	if t.SSHPort != 0 && t.SSHPort != cur.SSHPort {
		l.target.SSHPort, sidecar = t.SSHPort, true
	}
	if t.SSHUser != "" && t.SSHUser != cur.SSHUser {
		l.target.SSHUser, sidecar = t.SSHUser, true
	}
	if t.Machine != "" && t.Machine != cur.Machine {
		l.target.Machine = t.Machine
		notes = append(notes, fmt.Sprintf("limb %s was already open; it now knows its machine as %s", l.id, t.Machine))
	}
	if (t.User != "" && t.User != cur.User) || (t.Domain != "" && t.Domain != cur.Domain) {
		who := cur.User
		if who == "" {
			who = "no user"
		}
		notes = append(notes, fmt.Sprintf("limb %s was already open as %s; the saved host's login (%s) was not applied to the live session: close the limb and open the saved host again to log in with it", l.id, who, t.User))
	}
	l.mu.Unlock()
	if sidecar {
		l.filesMu.Lock()
		if l.files != nil {
			l.files.Close()
			l.files = nil
		}
		l.filesMu.Unlock()
		notes = append([]string{fmt.Sprintf("limb %s was already open; the saved host's SSH sidecar now serves its files", l.id)}, notes...)
	}
	return strings.Join(notes, "; ")
}

// adoptCredential decides what opening an endpoint that already has a limb
// does to the limb's credential (l.mu held). One limb is one session at one
// endpoint, so it has one account: an open without a credential joins it as
// it is; a limb without one takes the new one whole (user, domain and
// password together); the same account may bring a newer password (the
// user fixed it); another account is refused, never mixed in (a second
// saved host on the same endpoint must not send its password under the
// first host's user name).
func (l *Limb) adoptCredential(t limb.Target) error {
	cur := &l.target
	newHas := t.User != "" || t.Domain != "" || t.Password != ""
	curHas := cur.User != "" || cur.Domain != "" || cur.Password != ""
	switch {
	case !newHas:
	case !curHas:
		cur.User, cur.Domain, cur.Password = t.User, t.Domain, t.Password
	case cur.User == t.User && cur.Domain == t.Domain:
		if t.Password != "" {
			cur.Password = t.Password
		}
	default:
		e := wire.Errorf(wire.BadRequest, "limb %s is already open at this endpoint with another account (user %q); one limb never mixes two credentials",
			l.id, accountName(cur.Domain, cur.User))
		e.Next = fmt.Sprintf("close it first (dvv close %s), or, on RDP, open the other account with another slot", l.id)
		return e
	}
	return nil
}

func accountName(domain, user string) string {
	if domain != "" {
		return domain + `\` + user
	}
	return user
}
