package mcp

// Close ends the bridge's attachment to dvvd, for tests that run a bridge
// and drop it (dvvmcp's own ends with the process).
func (b *Bridge) Close() { b.att.close() }
