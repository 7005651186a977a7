package daemon

// trait is what dvvd's own work needs to know of an op, beyond what its
// spec tells a client (wire.OpSpec): declared where its handler is
// registered, `register(wire.OpClick, typed(opClick), brief, recorded, …)`.
type trait uint16

const (
	// brief ops are the short acts an agent makes in a loop (read the
	// screen, click, type): viewers sharing the limb yield the CPU to them
	// while they run (pkg/rfbserver Priority).
	brief trait = 1 << iota
	// recorded ops go into a running recording's act log (record start).
	recorded
	// unlogged ops are left out of the limb's history (reading the
	// history is not an event of it).
	unlogged
	// goneIsDone ops succeed on a limb that is already gone (close is
	// idempotent): dispatch answers `dispatched` saying so.
	goneIsDone
	// listedOnDesktops and listedOnTerminals: a limb summary (limbs, open)
	// of that kind lists the op among what the limb offers.
	listedOnDesktops
	listedOnTerminals
	// perceives ops read a desktop's picture, so a desktop opened without
	// perceive does not list them.
	perceives
)
