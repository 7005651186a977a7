package daemon

import (
	"slices"

	"github.com/dvvhq/dvv/pkg/wire"
)

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

// has reports whether the handler's op has trait t.
func (h handler) has(t trait) bool { return h.traits&t != 0 }

// listed names the ops of table a limb of this kind offers, in table
// order, as its summary lists them; perceive is whether a desktop limb
// reads its picture.
func listed(table *wire.Table, kind string, perceive bool) []string {
	want := listedOnDesktops
	if kind == wire.KindTerminal {
		want = listedOnTerminals
	}
	var out []string
	for _, s := range table.Ops() {
		h := handlers[s.Name]
		if h.has(want) && (perceive || !h.has(perceives) || kind != wire.KindDesktop) && !slices.Contains(out, s.Name) {
			out = append(out, s.Name)
		}
	}
	return out
}
