#!/usr/bin/env bash
# CLI start-up beside the smallest Go programs that do the same thing:
# `dvv --version` against one that prints a line, `dvv ping` against one
# that dials the socket and pings. All built with the same flags as
# `make build`; dvvd runs with a throw-away home. BASELINE=path/to/dvv
# adds an older dvv build to the same run (before/after a change). Then the
# same commands again, taking turns run by run (test/bench/startup/alternate),
# which keeps a shared machine's load drift out of the ratios. Figures go to
# docs/benchmarks.md ("CLI start-up").
set -euo pipefail
cd "$(dirname "$0")/.."
make build >/dev/null
work=$(mktemp -d)
trap 'kill $dvvd 2>/dev/null || true; rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$work/hello.out" ./test/bench/startup/hello
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$work/pingc.out" ./test/bench/startup/pingc
# Every binary measured is a copy: a file just written by the Go linker
# starts 0.3-0.8 ms slower than a copy of it (same bytes, same page faults;
# seen on ext4 here), and an installed dvv is a copy too.
cp "$work/hello.out" "$work/hello"
cp "$work/pingc.out" "$work/pingc"
cp bin/dvv "$work/dvv"
go build -o "$work/alternate" ./test/bench/startup/alternate
mkdir -m 700 "$work/run"
sock="$work/run/bench.sock"
HOME="$work" XDG_CONFIG_HOME="$work/config" bin/dvvd --no-discovery --socket "$sock" 2>"$work/dvvd.log" &
dvvd=$!
for _ in $(seq 100); do "$work/pingc" "$sock" >/dev/null 2>&1 && break; sleep 0.05; done
export DVV_SOCKET="$sock" DVV_SESSION=bench
baseline=()
if [ -n "${BASELINE:-}" ]; then
	cp "$BASELINE" "$work/dvv-baseline"
	baseline=("$work/dvv-baseline --version" "$work/dvv-baseline ping")
fi
hyperfine -N --warmup 30 --runs "${RUNS:-300}" --export-json "${OUT:-/dev/null}" \
	"$work/hello" "$work/dvv --version" "$work/pingc $sock" "$work/dvv ping" "${baseline[@]}"
"$work/alternate" -n "${RUNS:-300}" \
	"$work/hello" "$work/dvv --version" "$work/pingc $sock" "$work/dvv ping" "${baseline[@]}"
