package sshconfig

import (
	"io"
)

// Parse reads an ssh_config file. Include directives are resolved
// relative to sshDir (normally ~/.ssh); pass "" to ignore them.
func Parse(r io.Reader, sshDir string) (*Config, error) { return parseNamed(r, "", sshDir) }
