#!/bin/sh
# Prints packaging/changelog (Debian's format) for a build of VERSION: as
# is when its newest entry is VERSION, else headed by an entry for this
# build, so the .deb's changelog always names the version it installed.
set -eu
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: scripts/changelog.sh VERSION" >&2; exit 2; }
# Debian's spelling of a semver pre-release, as nfpm writes the package
# version: 0.2.0-rc.1 sorts before 0.2.0 only as 0.2.0~rc.1.
deb=$(printf '%s' "$1" | sed 's/-/~/')
newest=$(sed -n '1s/^dvv (\([^)]*\)).*/\1/p' packaging/changelog)
if [ "$newest" != "$deb" ]; then
	# The last commit's date (a rebuild makes the same file), else today's.
	rfc2822='%a, %d %b %Y %H:%M:%S %z'
	when=$(LC_ALL=C git log -1 --date="format:$rfc2822" --format=%ad 2>/dev/null || true)
	[ -n "$when" ] || when=$(LC_ALL=C date -u "+$rfc2822")
	printf 'dvv (%s) UNRELEASED; urgency=low\n\n  * A build from the sources, not a release.\n\n -- dvv developers <dev@dvv.invalid>  %s\n\n' \
		"$deb" "$when"
fi
cat packaging/changelog
