package mcp

import (
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dvvhq/dvv/pkg/wire"
)

// Local is what a tool the bridge serves itself states in place of an op:
// a tool that runs several ops over the bridge's attachment (dvv_script)
// has no one op whose spec and answer type its schemas could be read
// from. Its input schema is its Args, typed where they are declared (no
// op to take types from), closed as every tool's is.
type Local struct {
	ReadOnly bool
	// Raises are the codes its answers can carry (DAEMON_UNAVAILABLE is
	// added, as for every tool).
	Raises []wire.Code
	// Output is the JSON Schema of its structuredContent.
	Output map[string]any
	// Handler serves its calls through the bridge.
	Handler func(b *Bridge, t *Tool) sdk.ToolHandler
}
