package cli

import "github.com/dvvhq/dvv/pkg/wire"

// cliNext words the generic "next" hints of pkg/wire (written for MCP tool
// calls) as dvv commands. A hint dvvd wrote for this one failure (naming
// the limb, a fingerprint…) is printed as it came.
var cliNext = map[wire.Code]string{
	wire.LimbGone:        "`dvv limbs` lists the current ids; the same machine at the same slot comes back with the same id.",
	wire.GeometryChanged: "run `dvv screen LIMB` again and recompute the coordinate against the new generation.",
	wire.ScreenChanged:   "run `dvv screen LIMB`, check what has focus and what is selected, then type; when your own act repainted (a Return that scrolled), `dvv type --read LIMB …` reads, then types.",
	wire.LeaseRevoked:    "run `dvv control status LIMB`; if a person took over, stop and leave it to them.",
	wire.LeaseNotHeld:    "run `dvv control acquire LIMB` (--wait 10s to wait for it).",
	wire.UnknownKey:      "use a key name from docs/keys.md (e.g. `dvv key LIMB ctrl+alt+t`, `dvv key LIMB super`).",
	wire.Unfenced:        "pass --generation with the value `dvv status LIMB` or `dvv screen LIMB` shows.",
	wire.NotReady:        "run `dvv wait LIMB --until connected`, then retry.",
	wire.NotConnected:    "run `dvv reconnect LIMB`, or `dvv status LIMB` to read the reason.",
	wire.Timeout:         "`dvv status LIMB` or `dvv history LIMB` tells what happened.",
	wire.ProtocolError:   "run `dvv reconnect LIMB`; if it repeats, the server is broken.",
	wire.NotFound:        "list what exists: `dvv hosts`, `dvv group ls`, `dvv token ls`, `dvv files ls LIMB PATH`.",
	wire.KeychainMissing: "start a Secret Service provider (gnome-keyring) in the session, or put a HOST:PASSWORD line in ~/.config/dvv/credentials (chmod 600); see docs/security.md.",
	wire.Internal:        "report it with `dvv report`; dvvd stays up.",
}

// opNext are the generic hints that depend on the op that failed: a file
// that is not there is not a missing host or token.
var opNext = map[string]map[wire.Code]string{
	wire.OpFiles:    {wire.NotFound: "check the remote path: `dvv files ls LIMB DIR` lists what is there (~ is the remote home; a desktop's files come over its SSH sidecar)."},
	wire.OpTransfer: {wire.NotFound: "check both paths: `dvv files ls LIMB DIR` on each limb, and `dvv limbs` for the ids."},
}

// nextFor is the hint to print after a failure of op ("" when unknown).
func nextFor(op string, we *wire.Error) string {
	if we.Next == we.Code.Info().Next {
		if s, ok := opNext[op][we.Code]; ok {
			return s
		}
		if s, ok := cliNext[we.Code]; ok {
			return s
		}
	}
	return we.Next
}
