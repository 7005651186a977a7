//go:build !linux

package daemon

import "runtime"

// osText is GOOS/GOARCH.
func osText() string { return runtime.GOOS + "/" + runtime.GOARCH }
