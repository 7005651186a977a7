package daemon

import (
	"sync"
	"time"

	"github.com/dvvhq/dvv/pkg/atspi"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// structureRetry is how long a failed look for a desktop's session is
// answered from memory before the sidecar is tried again: signals runs
// often, and a machine without an SSH server should not be dialed each time.
const structureRetry = 10 * time.Second

// structureDial bounds one look for the session over the sidecar.
const structureDial = 15 * time.Second

// structureCache is a desktop limb's window structure: the session found
// over its SSH sidecar (limb.Structure), opened on first use and kept
// while its SSH connection lives.
type structureCache struct {
	mu       sync.Mutex // held across a dial: one look at a time per limb
	s        limb.Structure
	err      *wire.Error
	failedAt time.Time

	// The accessibility bus of the session, one connection per limb kept
	// across element ops (a dial is a streamlocal channel, D-Bus's
	// authentication and Hello: several round trips over the sidecar).
	// busOn is the session it was dialled over; a connection that ended or
	// belongs to a session since dropped is dialled again.
	busMu sync.Mutex // held across a dial: one connection per limb
	bus   *atspi.Client
	busOn limb.Structure
}

// noSidecarSaved is why signals does not look over port 22 by itself.
const noSidecarSaved = "no SSH sidecar is saved for this desktop (dvv hosts add NAME … --ssh-port P --ssh-user U); windows looks over port 22 as the local user when asked"
