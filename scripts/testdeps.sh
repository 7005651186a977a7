#!/usr/bin/env bash
# Installs (as root, with apt) every server and tool dvv's tests and demo
# start: VNC, SSH, RDP, keyring, mDNS servers, X tools, a browser. Safe to
# run again: it does nothing when everything is already there.
set -euo pipefail

packages=(
  tigervnc-standalone-server tigervnc-tools xvfb x11vnc x11-xserver-utils x11-apps x11-utils
  xterm xdotool imagemagick xauth xfonts-base fonts-dejavu-core xclip
  vncsnapshot websockify qemu-system-x86 openssh-server openssh-client
  gnome-keyring libsecret-tools dbus avahi-daemon avahi-utils
  freerdp2-shadow-x11 freerdp2-x11 winpr-utils xrdp xorgxrdp
  netcat-openbsd openssl procps psmisc hyperfine asciinema ffmpeg tesseract-ocr tesseract-ocr-eng chromium npm
  tmux bsdutils iproute2 systemd e2fsprogs util-linux
)
# One program per package group; when all are present there is nothing to do.
probes=(Xvnc vncpasswd Xvfb x11vnc xrandr xterm xdotool import xclip vncsnapshot websockify
  qemu-system-x86_64 sshd ssh gnome-keyring-daemon secret-tool dbus-daemon avahi-daemon
  avahi-publish freerdp-shadow-cli xfreerdp winpr-hash xrdp nc openssl pgrep hyperfine asciinema ffmpeg tesseract chromium npm
  tmux script ss systemd-analyze chattr setpriv)
missing=()
for p in "${probes[@]}"; do
  command -v "$p" >/dev/null 2>&1 || [ -x "/usr/sbin/$p" ] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "testdeps: installing packages (missing: ${missing[*]})" >&2
SUDO=
if [ "$(id -u)" != 0 ]; then
  SUDO=sudo
fi
# Package scripts must not start daemons (they would listen on 0.0.0.0):
# the tests start every server themselves, on 127.0.0.1.
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
  $SUDO chmod 755 /usr/sbin/policy-rc.d
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q >/dev/null
$SUDO apt-get install -y -q --no-install-recommends "${packages[@]}" >/dev/null
echo "testdeps: done" >&2
