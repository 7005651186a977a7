#!/usr/bin/env bash
# CLI start-up beside the smallest Go programs that do the same thing:
# `dvv --version` against one that prints a line, `dvv ping` against one
# that dials the socket and pings. All built with the same flags as
# `make build`; dvvd runs with a throw-away home. BASELINE=path/to/dvv
# adds an older dvv build to the same run (before/after a change). Figures
# go to docs/benchmarks.md ("CLI start-up").
set -euo pipefail
cd "$(dirname "$0")/.."
make build >/dev/null
work=$(mktemp -d)
trap 'kill $dvvd 2>/dev/null || true; rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$work/hello" ./test/bench/startup/hello
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$work/pingc" ./test/bench/startup/pingc
mkdir -m 700 "$work/run"
sock="$work/run/bench.sock"
HOME="$work" XDG_CONFIG_HOME="$work/config" bin/dvvd --no-discovery --socket "$sock" 2>"$work/dvvd.log" &
dvvd=$!
for _ in $(seq 100); do "$work/pingc" "$sock" >/dev/null 2>&1 && break; sleep 0.05; done
export DVV_SOCKET="$sock" DVV_SESSION=bench
baseline=()
if [ -n "${BASELINE:-}" ]; then
	baseline=("$BASELINE --version" "$BASELINE ping")
fi
hyperfine -N --warmup 30 --runs "${RUNS:-300}" --export-json "${OUT:-/dev/null}" \
	"$work/hello" "bin/dvv --version" "$work/pingc $sock" "bin/dvv ping" "${baseline[@]}"
