//go:build !linux && !darwin

package cli

import (
	"errors"
	"os"
)

// noEcho is not available here; passwords should be piped in.
func noEcho(*os.File) (func(), error) { return nil, errors.New("no terminal control on this system") }
