//go:build race

package testbed

// slowdown scales every wait's deadline: the race detector runs code
// several times slower, and a deadline is only a safety net.
const slowdown = 4
