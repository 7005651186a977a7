package daemon

import (
	"sync/atomic"
	"time"
)

// An attachment is one client identity: an MCP bridge, or a shell. It sees
// the limbs it opened or attached, and it is what holds a lease.
//
// Lifetime: an attachment made without a session key lives as long as its
// connection; when the connection ends its leases are released at once (a
// crashed agent holds nothing). An attachment made with a session key (the
// dvv CLI sends one per shell) outlives its connections, so a lease survives
// between two commands typed in the same shell; it ends when the shell
// process named in the key exits, or after SessionIdle without a request.
type attachment struct {
	key      string
	name     string
	session  string
	grant    Grant
	limbs    map[string]bool // attached limb ids
	conns    int
	lastSeen time.Time
	// person: took control as a person (takeover). Unlike the rest it is
	// atomic, so a limb's lease reads it under its own lock alone.
	person atomic.Bool
}
