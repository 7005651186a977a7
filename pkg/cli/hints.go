package cli

import "github.com/dvvhq/dvv/pkg/wire"

// cliNext words the generic "next" hints of pkg/wire (written for MCP tool
// calls) as dvv commands. A hint dvvd wrote for this one failure (naming
// the limb, a fingerprint…) is printed as it came.
var cliNext = map[wire.Code]string{
	wire.LimbGone:        "`dvv limbs` lists the current ids; the same machine at the same slot comes back with the same id.",
	wire.GeometryChanged: "run `dvv screen LIMB` again and recompute the coordinate against the new generation.",
	wire.ScreenChanged:   "run `dvv screen LIMB`, check what has focus and what is selected, then type.",
	wire.LeaseRevoked:    "run `dvv control yield-status LIMB`; if a person took over, stop and leave it to them.",
	wire.LeaseNotHeld:    "run `dvv control acquire LIMB` (--wait-ms to wait for it).",
	wire.Unfenced:        "pass --generation with the value `dvv status LIMB` or `dvv screen LIMB` shows.",
	wire.NotReady:        "run `dvv wait LIMB --until connected`, then retry.",
	wire.NotConnected:    "run `dvv reconnect LIMB`, or `dvv status LIMB` to read the reason.",
	wire.Timeout:         "`dvv status LIMB` or `dvv history LIMB` tells what happened.",
	wire.ProtocolError:   "run `dvv reconnect LIMB`; if it repeats, the server is broken.",
	wire.NotFound:        "list what exists: `dvv hosts`, `dvv group ls`, `dvv token ls`, `dvv files ls LIMB PATH`.",
	wire.KeychainMissing: "start a Secret Service provider (gnome-keyring) in the session, or put a HOST:PASSWORD line in ~/.config/dvv/credentials (chmod 600); see docs/security.md.",
	wire.Internal:        "report it with `dvv report`; dvvd stays up.",
}

// nextFor is the hint to print after a failure.
func nextFor(we *wire.Error) string {
	if we.Next == we.Code.Info().Next {
		if s, ok := cliNext[we.Code]; ok {
			return s
		}
	}
	return we.Next
}
