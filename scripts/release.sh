#!/usr/bin/env bash
# Makes the release source tarball for VERSION in DIR (`make release`):
#   dvv-VERSION.tar.gz  the tracked sources as they are in the work tree,
#                       vendor/ (every Go module the build needs) and the
#                       built viewer assets (noVNC, xterm.js), so it builds
#                       with `make share` and no npm or network;
#   SHA256SUMS          its checksum, as `sha256sum -c` reads it;
#   dvv.rb              the Homebrew formula for it (packaging/homebrew/dvv.rb.in
#                       with the version and checksum filled in).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: scripts/release.sh VERSION DIR" >&2; exit 2; }
version=$1 out=$2
for f in pkg/viewer/assets/dist/novnc/core/rfb.js pkg/viewer/assets/dist/xterm/xterm.mjs; do
	[ -s "$f" ] || { echo "release: $f is missing: run 'make web' (it needs npm 7+) first" >&2; exit 1; }
done
name=dvv-$version
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$name"
# Tracked files as they are now (a file deleted but not yet committed is
# left out), then the assets, which are not tracked.
git ls-files -z | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
	tar --null -T - -cf - | tar -xf - -C "$stage/$name"
tar -cf - pkg/viewer/assets/dist | tar -xf - -C "$stage/$name"
printf 'viewer assets built by `make web` from pkg/viewer/web/package-lock.json for %s\n' "$version" \
	>"$stage/$name/pkg/viewer/assets/dist/.release"
printf '%s\n' "$version" >"$stage/$name/VERSION"
(cd "$stage/$name" && GOFLAGS=-mod=mod go mod vendor)

# Reproducible: names sorted, one owner, one time (the last commit's).
mtime=$(git log -1 --format=%ct 2>/dev/null || date +%s)
mkdir -p "$out"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$mtime" \
	--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
	-C "$stage" -cf - "$name" | gzip -9n >"$out/$name.tar.gz"
sum=$(sha256sum "$out/$name.tar.gz" | cut -d' ' -f1)
printf '%s  %s\n' "$sum" "$name.tar.gz" >"$out/SHA256SUMS"
sed -e "s/@VERSION@/$version/g" -e "s/@SHA256@/$sum/g" packaging/homebrew/dvv.rb.in >"$out/dvv.rb"
echo "release: $out/$name.tar.gz ($sum), $out/SHA256SUMS, $out/dvv.rb"
