package hosts

import (
	"os"
	"path/filepath"

	"github.com/dvvhq/dvv/pkg/sshx/sshconfig"
	"github.com/dvvhq/dvv/pkg/wire"
)

// maxSSHHosts bounds the aliases listed from ssh configuration.
const maxSSHHosts = 1000

// SystemSSHConfigPath is read after the user's file, as ssh reads it, for
// the settings of each alias (a system-wide Port or User applies to them).
var SystemSSHConfigPath = "/etc/ssh/ssh_config"

// DefaultSSHConfigPath is ~/.ssh/config.
func DefaultSSHConfigPath() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".ssh", "config")
}

// SSHConfigHosts lists the Host entries of an ssh client configuration that
// name one machine (no wildcards or negations), as ssh hosts with ID
// "ssh-" + alias, or none when the configuration cannot be read (ReadSSHConfigHosts
// says why). HostName, Port and User are what a connection to the alias
// would use: pkg/sshx/sshconfig reads the file for both.
func SSHConfigHosts(path string) []Host {
	hs, _ := ReadSSHConfigHosts(path)
	return hs
}

// ReadSSHConfigHosts is SSHConfigHosts with the reason a configuration
// was refused (a syntax error, an Include loop), located at file and line.
// A missing file gives no hosts and no error.
func ReadSSHConfigHosts(path string) ([]Host, error) {
	if path == "" {
		path = DefaultSSHConfigPath()
	}
	// Relative Includes are relative to the directory holding the user's
	// file, which is ~/.ssh for the real one.
	sshDir := filepath.Dir(path)
	user, err := sshconfig.Load(path, sshDir)
	if err != nil {
		return nil, err
	}
	set := sshconfig.Set{user}
	if SystemSSHConfigPath != "" {
		system, err := sshconfig.Load(SystemSSHConfigPath, sshDir)
		if err != nil {
			return nil, err
		}
		set = append(set, system)
	}
	aliases := user.Aliases()
	if len(aliases) > maxSSHHosts {
		aliases = aliases[:maxSSHHosts]
	}
	out := make([]Host, 0, len(aliases))
	for _, alias := range aliases {
		s := set.Lookup(alias)
		h := Host{ID: "ssh-" + alias, Name: alias, Protocol: wire.ProtoSSH, Source: SourceSSHConfig,
			Address: alias, Port: 22, User: s.User}
		if s.HostName != "" {
			h.Address = sshconfig.ExpandTokens(s.HostName, sshconfig.Tokens{Host: alias, Alias: alias})
		}
		if s.Port != 0 {
			h.Port = s.Port
		}
		out = append(out, h)
	}
	return out, nil
}
