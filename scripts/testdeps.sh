#!/usr/bin/env bash
# Installs (as root, with apt) every server and tool dvv's tests and demo
# start: VNC, SSH, RDP, keyring, mDNS servers, X tools, a browser. Safe to
# run again: it does nothing when everything is already there.
#
# It asks apt only for the packages whose programs are missing, so a
# machine that already has one of them from elsewhere (Node.js and npm from
# NodeSource, say, whose nodejs conflicts with Debian's npm) is left alone.
#
# For its own test (test/scripts): APT_GET names the apt-get to run
# (default apt-get), TESTDEPS_ROOT is prefixed to every file it looks for
# (and, being a test's tree, means no sudo and no policy-rc.d), and
# TESTDEPS_DRY_RUN=1 prints the packages it would ask for and exits.
set -euo pipefail

# program package: one line a program the tests or the demo start; a
# package may appear on several lines, it is asked for once.
table='
Xvnc tigervnc-standalone-server
vncpasswd tigervnc-tools
Xvfb xvfb
x11vnc x11vnc
xrandr x11-xserver-utils
xclock x11-apps
xcalc x11-apps
xedit x11-apps
xdpyinfo x11-utils
xev x11-utils
xmessage x11-utils
xfontsel x11-utils
xterm xterm
xdotool xdotool
import imagemagick
xauth xauth
xclip xclip
vncsnapshot vncsnapshot
websockify websockify
qemu-system-x86_64 qemu-system-x86
qemu-img qemu-utils
libvirtd libvirt-daemon
virsh libvirt-clients
sshd openssh-server
ssh openssh-client
gnome-keyring-daemon gnome-keyring
secret-tool libsecret-tools
dbus-daemon dbus
avahi-daemon avahi-daemon
avahi-publish avahi-utils
freerdp-shadow-cli freerdp2-shadow-x11
xfreerdp freerdp2-x11
winpr-hash winpr-utils
xrdp xrdp
nc netcat-openbsd
openssl openssl
pgrep procps
killall psmisc
hyperfine hyperfine
asciinema asciinema
ffmpeg ffmpeg
tesseract tesseract-ocr
chromium chromium
zenity zenity
openbox openbox
wmctrl wmctrl
gtk3-demo gtk-3-examples
tmux tmux
script bsdutils
ss iproute2
systemd-analyze systemd
chattr e2fsprogs
setpriv util-linux
sudo sudo
pkg-config pkg-config
groff groff-base
'
# Files that no program probe finds: fonts, language data, X modules.
files='
/usr/share/fonts/X11/misc/fonts.dir xfonts-base
/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf fonts-dejavu-core
/usr/lib/xorg/modules/libxorgxrdp.so xorgxrdp
/usr/include/tesseract/capi.h libtesseract-dev
/usr/libexec/at-spi-bus-launcher at-spi2-core
'

# The viewer's build needs npm 7 or newer (lock file version 2+). An npm
# that is there and new enough is kept, wherever it came from; only a
# machine with none gets Debian's.
npm_ok() {
  command -v npm >/dev/null 2>&1 || return 1
  local v
  v=$(npm --version 2>/dev/null) || return 1
  [ "${v%%.*}" -ge 7 ] 2>/dev/null
}

# Daemons live in sbin, which a user's PATH often lacks.
have() {
  local d
  command -v "$1" >/dev/null 2>&1 && return
  for d in /usr/sbin /usr/bin /sbin; do
    [ -x "${TESTDEPS_ROOT:-}$d/$1" ] && return
  done
  return 1
}

# NodeSource's nodejs carries its own npm and declares it (Provides: npm);
# Debian's npm conflicts with it. Debian's own nodejs (20 on Debian 13)
# provides no npm, and Debian's npm goes with it.
nodejs_bundles_npm() {
  dpkg-query -W -f='${Provides}' nodejs 2>/dev/null | grep -Eq '(^|[ ,])npm([ ,(]|$)'
}

want=()
add() {
  local p
  for p in "${want[@]}"; do [ "$p" = "$1" ] && return; done
  want+=("$1")
}
while read -r prog pkg; do
  [ -n "$prog" ] || continue
  have "$prog" || add "$pkg"
done <<<"$table"
while read -r file pkg; do
  [ -n "$file" ] || continue
  [ -e "${TESTDEPS_ROOT:-}$file" ] || add "$pkg"
done <<<"$files"
# OCR's English data sits under a version-numbered folder.
compgen -G "${TESTDEPS_ROOT:-}/usr/share/tesseract-ocr/*/tessdata/eng.traineddata" >/dev/null || add tesseract-ocr-eng
if ! npm_ok; then
  if nodejs_bundles_npm; then
    # Asking apt for npm would be refused (held broken packages) and take
    # every other package down with it: say what to do instead.
    echo "testdeps: node $(node --version) is installed but npm is missing or older than 7;" >&2
    echo "testdeps: install the npm that belongs to that Node.js (or remove it and rerun), then rerun" >&2
  else
    add npm
  fi
fi

if [ "${TESTDEPS_DRY_RUN:-}" = 1 ]; then
  [ ${#want[@]} -eq 0 ] || printf '%s\n' "${want[@]}"
  exit 0
fi
if [ ${#want[@]} -eq 0 ]; then
  exit 0
fi
echo "testdeps: installing ${want[*]}" >&2
SUDO=
if [ -z "${TESTDEPS_ROOT:-}" ] && [ "$(id -u)" != 0 ]; then
  SUDO=sudo
fi
APT_GET=${APT_GET:-apt-get}
# Package scripts must not start daemons (they would listen on 0.0.0.0):
# the tests start every server themselves, on 127.0.0.1.
if [ -z "${TESTDEPS_ROOT:-}" ] && [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
  $SUDO chmod 755 /usr/sbin/policy-rc.d
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO "$APT_GET" update -q >/dev/null
$SUDO "$APT_GET" install -y -q --no-install-recommends "${want[@]}" >/dev/null
echo "testdeps: done" >&2
