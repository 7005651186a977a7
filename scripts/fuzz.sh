#!/usr/bin/env bash
# Runs every Go fuzz target in the repository, one after another, each for
# $FUZZTIME (default 3s: the CI budget; FUZZTIME=1m or more for a long local
# run). Targets are found in the sources, so a new one is never forgotten.
# A failing target's input is kept under its package's testdata/fuzz/ by
# `go test`; the script runs the rest and exits 1 naming the failures.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME="${FUZZTIME:-3s}"
GO="${GO:-go}"
# Workers per target; the default keeps a shared machine usable.
FUZZPARALLEL="${FUZZPARALLEL:-2}"

mapfile -t targets < <(git ls-files '*_test.go' | xargs grep -H -o '^func Fuzz[A-Za-z0-9_]*(' |
	sed -E 's#^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\($#\1 \2#' | sort -u)
# FUZZMATCH (a regexp over "dir Name") picks some targets, e.g. FUZZMATCH=pkg/rdp.
if [ -n "${FUZZMATCH:-}" ]; then
	mapfile -t targets < <(printf '%s\n' "${targets[@]}" | grep -E -- "$FUZZMATCH" || true)
fi
if [ "${#targets[@]}" -eq 0 ]; then
	echo "fuzz.sh: no fuzz targets found" >&2
	exit 1
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# fuzz_one runs one target. A real failure writes its input under
# testdata/fuzz/ and says so; a bare "context deadline exceeded" at the end
# of -fuzztime on a loaded machine is the Go fuzz coordinator's own race
# (golang/go#75804), retried once and then reported, not failed.
fuzz_one() {
	local dir=$1 name=$2 try
	for try in 1 2; do
		if $GO test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" -parallel "$FUZZPARALLEL" "./$dir" >"$out" 2>&1; then
			tail -n 3 "$out"
			return 0
		fi
		cat "$out"
		if grep -q 'Failing input written to' "$out" || ! grep -q 'context deadline exceeded' "$out"; then
			return 1
		fi
		echo "fuzz.sh: ./$dir $name: deadline race of the fuzz coordinator, no failing input (try $try)"
	done
	flaked+=("./$dir $name")
	return 0
}

failed=()
flaked=()
start=$SECONDS
for t in "${targets[@]}"; do
	dir=${t% *}
	name=${t#* }
	echo "== ./$dir $name ($FUZZTIME)"
	if ! fuzz_one "$dir" "$name"; then
		failed+=("./$dir $name")
	fi
done
echo "fuzz.sh: ${#targets[@]} targets, $((SECONDS - start)) s"
if [ "${#flaked[@]}" -gt 0 ]; then
	printf 'fuzz.sh: only the coordinator deadline race, twice: %s\n' "${flaked[@]}"
fi
if [ "${#failed[@]}" -gt 0 ]; then
	printf 'fuzz.sh: FAILED %s\n' "${failed[@]}" >&2
	exit 1
fi
