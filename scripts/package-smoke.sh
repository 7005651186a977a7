#!/usr/bin/env bash
# Builds the .deb, installs it with dpkg, checks what it installed and that
# the packaged dvvd serves the packaged dvv (started directly and through
# socket activation), then removes the package. Run as root (CI).
set -euo pipefail
cd "$(dirname "$0")/.."
make package >/dev/null
deb=$(ls -t bin/dvv_*.deb | head -1)
version=$(dpkg-deb -f "$deb" Version)
work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	dpkg -r dvv >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

# The package's metadata, before it is installed: a short synopsis as the
# description's first line, the recommends, and a changelog that names this
# version where Debian policy puts it.
fail() { echo "$deb: $*" >&2; exit 1; }
synopsis=$(dpkg-deb -f "$deb" Description | head -1)
[[ ${#synopsis} -le 80 && $synopsis != *. && $synopsis != *: && -n $synopsis ]] ||
	fail "the description's first line is not a short synopsis: '$synopsis'"
[[ $(dpkg-deb -f "$deb" Description | wc -l) -gt 1 ]] || fail "the description has no long part"
recommends=$(dpkg-deb -f "$deb" Recommends)
for r in bash-completion gnome-keyring openssh-client; do
	[[ ", $recommends," == *", $r,"* ]] || fail "Recommends: $recommends lacks $r"
done
# (Whole files, not pipes into grep -q or head: with pipefail, a writer cut
# short by SIGPIPE would fail the check.)
dpkg-deb -c "$deb" >"$work/contents"
grep ' \./usr/share/doc/dvv/changelog\.gz$' "$work/contents" >/dev/null || fail "no /usr/share/doc/dvv/changelog.gz"
mkdir "$work/deb"
dpkg-deb -x "$deb" "$work/deb"
gunzip -c "$work/deb/usr/share/doc/dvv/changelog.gz" >"$work/changelog"
[[ $(head -1 "$work/changelog") == "dvv ($version) "* ]] || fail "changelog.gz's newest entry is not $version: $(head -1 "$work/changelog")"
# A man page as man shows it: the arguments survive in SYNOPSIS.
man -l -P cat "$work/deb/usr/share/man/man1/dvv-click.1.gz" >"$work/dvv-click.txt" 2>/dev/null
grep -F 'dvv click [flags] <limbId> <x> <y>' "$work/dvv-click.txt" >/dev/null ||
	fail "dvv-click(1) SYNOPSIS lost its arguments"

dpkg -i "$deb" >/dev/null
echo "installed $deb ($version)"
for b in dvvd dvv dvvmcp; do
	got=$(/usr/bin/$b --version)
	# dpkg turns a semver pre-release 0.1.0-dev into 0.1.0~dev.
	[[ "$got" == "$b ${version//\~/-}" ]] || { echo "$b --version says '$got', the package is $version" >&2; exit 1; }
done
for f in /usr/lib/systemd/user/dvvd.service /usr/lib/systemd/user/dvvd.socket \
	/usr/share/bash-completion/completions/dvv /usr/share/zsh/vendor-completions/_dvv \
	/usr/share/fish/vendor_completions.d/dvv.fish /usr/share/man/man1/dvv.1.gz \
	/usr/share/man/man1/dvvd.1.gz /usr/share/man/man1/dvvmcp.1.gz /usr/share/doc/dvv/copyright \
	/usr/share/doc/dvv/changelog.gz; do
	[[ -s $f ]] || { echo "the package lacks $f" >&2; exit 1; }
done
mkdir -m 700 "$work/run"
# systemd-analyze verify exits 0 on an unknown key or a bad value: a warning
# is a failure here. No service manager runs in CI containers, so the unit
# is checked offline; `systemd-run --user` cannot start it there.
units=(/usr/lib/systemd/user/dvvd.service /usr/lib/systemd/user/dvvd.socket)
warnings=$(XDG_RUNTIME_DIR="$work/run" systemd-analyze verify --user --man=no "${units[@]}" 2>&1) ||
	{ echo "systemd-analyze verify failed:" >&2; echo "$warnings" >&2; exit 1; }
[[ -z $warnings ]] || { echo "systemd-analyze verify warns:" >&2; echo "$warnings" >&2; exit 1; }
# The same exposure bound as pkg/cli's TestServiceInstallUninstall.
XDG_RUNTIME_DIR="$work/run" systemd-analyze security --offline=yes --user --threshold=81 "${units[0]}" >"$work/security.txt" 2>&1 ||
	{ echo "the packaged unit is less hardened than before:" >&2; cat "$work/security.txt" >&2; exit 1; }

# The packaged daemon and CLI, with a throw-away home.
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_RUNTIME_DIR="$work/run"
mkdir -p "$HOME"
wait_ping() {
	for _ in $(seq 100); do
		if /usr/bin/dvv --socket "$1" ping >/dev/null 2>&1; then return 0; fi
		sleep 0.1
	done
	/usr/bin/dvv --socket "$1" ping
}
/usr/bin/dvvd --no-discovery --socket "$work/run/direct.sock" 2>"$work/direct.log" &
pids+=($!)
wait_ping "$work/run/direct.sock"
/usr/bin/dvv --socket "$work/run/direct.sock" version
# Socket activation: systemd's own helper binds the socket and starts dvvd
# on the first connection, as dvvd.socket does.
systemd-socket-activate -l "$work/run/activated.sock" /usr/bin/dvvd --no-discovery 2>"$work/activated.log" &
pids+=($!)
for _ in $(seq 100); do [[ -S $work/run/activated.sock ]] && break; sleep 0.1; done
wait_ping "$work/run/activated.sock"
grep -q "service manager passed" "$work/activated.log" || { echo "dvvd did not take the passed socket:" >&2; cat "$work/activated.log" >&2; exit 1; }

dpkg -r dvv >/dev/null
[[ ! -e /usr/bin/dvvd ]] || { echo "dpkg -r left /usr/bin/dvvd" >&2; exit 1; }
echo "package smoke test passed: $version"
