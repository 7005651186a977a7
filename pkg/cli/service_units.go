package cli

import "strings"

// The service files `dvv service install` writes. service/ holds the same
// files rendered for the packages' paths; a test keeps them identical.

const systemdService = `# systemd user unit for dvvd. ` + "`dvv service install`" + ` writes and enables it
# (with dvvd.socket) for the current user; the .deb/.rpm ship both in
# /usr/lib/systemd/user/ for every user:
#   systemctl --user enable --now dvvd.socket
[Unit]
Description=dvv daemon: live VNC, RDP and SSH limbs for agents, scripts and people
Documentation=man:dvvd(1) https://github.com/dvvhq/dvv/blob/main/README.md
After=dbus.socket
# Started on the first connection to the socket; started alone it binds
# the same path itself.
Wants=dvvd.socket
After=dvvd.socket

[Service]
Type=simple
ExecStart=@DVVD@ --id default
Restart=on-failure
RestartSec=2s
# dvvd closes every limb on SIGTERM.
KillSignal=SIGTERM
TimeoutStopSec=15s
# Passwords without a desktop keyring (docs/security.md): dvvd reads
# ~/.config/dvv/credentials (mode 0600), and systemd credentials a drop-in
# adds (` + "`systemctl --user edit dvvd`" + `, LoadCredential=dvv-HOST:/path) from
# $CREDENTIALS_DIRECTORY.

# Hardening. dvvd writes only its own directories: the socket in
# $XDG_RUNTIME_DIR/dvv, saved hosts, tokens and pins in $XDG_CONFIG_HOME/dvv,
# state in $XDG_STATE_HOME/dvv, and known_hosts in ~/.ssh when you trust a
# key. Images and fetched files are written by the dvv CLI in the caller's
# own process, never by dvvd.
NoNewPrivileges=yes
ProtectSystem=strict
ProtectHome=read-only
ConfigurationDirectory=dvv
ConfigurationDirectoryMode=0700
StateDirectory=dvv
StateDirectoryMode=0700
RuntimeDirectory=dvv
RuntimeDirectoryMode=0700
RuntimeDirectoryPreserve=yes
ReadWritePaths=-%h/.ssh
PrivateTmp=no
LockPersonality=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
RestrictNamespaces=yes
SystemCallArchitectures=native
MemoryDenyWriteExecute=yes
UMask=0077

[Install]
WantedBy=default.target
`

const systemdSocket = `# systemd user socket for dvvd: the socket exists from login on and the
# first client starts dvvd. The path is dvv's default socket
# ($XDG_RUNTIME_DIR/dvv/default.sock), so ` + "`dvv`" + ` and ` + "`dvvmcp`" + ` find it
# without --socket.
[Unit]
Description=dvv daemon control socket
Documentation=man:dvvd(1)

[Socket]
ListenStream=%t/dvv/default.sock
SocketMode=0600
DirectoryMode=0700
RemoveOnStop=yes

[Install]
WantedBy=sockets.target
`

// launchdLabel names dvvd's LaunchAgent.
const launchdLabel = "dev.dvv.dvvd"

const launchdPlist = `<?xml version="1.0" encoding="UTF-8"?>
<!-- launchd agent for dvvd, written by ` + "`dvv service install`" + ` with the path of the
     dvvd installed beside dvv (the Homebrew formula's ` + "`brew services start dvv`" + `
     writes its own, with the formula's prefix). -->
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key><string>dev.dvv.dvvd</string>
  <key>ProgramArguments</key>
  <array>
    <string>@DVVD@</string>
    <string>--id</string><string>default</string>
  </array>
  <key>RunAtLoad</key><true/>
  <key>KeepAlive</key>
  <dict><key>SuccessfulExit</key><false/></dict>
  <key>ProcessType</key><string>Interactive</string>
  <key>StandardErrorPath</key><string>@LOG@</string>
</dict>
</plist>
`

// renderUnit puts dvvd's path into a systemd unit.
func renderUnit(tmpl, dvvd string) string { return strings.ReplaceAll(tmpl, "@DVVD@", dvvd) }

// renderPlist puts dvvd's path and the log path into the LaunchAgent.
func renderPlist(dvvd, log string) string {
	esc := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	return strings.NewReplacer("@DVVD@", esc.Replace(dvvd), "@LOG@", esc.Replace(log)).Replace(launchdPlist)
}
