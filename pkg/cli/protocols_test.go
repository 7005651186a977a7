package cli

import (
	"strings"
	"testing"

	"github.com/dvvhq/dvv/pkg/wire"
)

// TestNewProtocolReachesTheCLI: a protocol registered in wire.Protocols is
// offered by open's help (name and default port) and accepted by
// --protocol, with no CLI code of its own.
func TestNewProtocolReachesTheCLI(t *testing.T) {
	saved := wire.Protocols
	wire.Protocols = append(append([]wire.ProtocolSpec{}, saved...),
		wire.ProtocolSpec{Name: "fakep", Kind: wire.KindDesktop, DefaultPort: 7000})
	// Restored last, once the daemon (if any) has stopped reading it.
	t.Cleanup(func() { wire.Protocols = saved })

	_, code, stdout, stderr := sent(t, "open", "--help")
	if code != 0 || !strings.Contains(stdout, "fakep") || !strings.Contains(stdout, "7000 fakep") {
		t.Fatalf("open --help (exit %d) does not offer the registered protocol:\n%s%s", code, stdout, stderr)
	}
	req, code, _, stderr := sent(t, "open", "10.0.0.9", "--protocol", "fakep", "--wait=false")
	if code != 0 || req == nil || req.Protocol != "fakep" {
		t.Fatalf("open --protocol fakep: exit %d, request %+v, %s", code, req, stderr)
	}
}
