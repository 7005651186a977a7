#!/usr/bin/env bash
# make bench: Go micro-benchmarks of every package, then the end-to-end and
# side-by-side runs against real servers. Output goes to bench.out; the
# figures in docs/benchmarks.md were copied from such runs.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${BENCH_OUT:-bench.out}
{
  echo "# make bench on $(hostname) at $(date -u +%FT%TZ), $(nproc) cores"
  echo
  echo '## go test -run ^$ -bench . -benchmem ./...'
  go test -run '^$' -bench . -benchmem -benchtime 1s ./... 2>&1 | grep -E '^(Benchmark|ok|PASS|FAIL|pkg:)' || true
  echo
  echo '## DVV_BENCH_FIFTY=1 go test -tags bench -run . -v ./test/bench'
  DVV_BENCH_FIFTY=1 go test -count=1 -tags bench -run . -v -timeout 30m ./test/bench 2>&1 | grep -vE '^(=== RUN|--- PASS|PASS|ok )' || true
} | tee "$out"
echo "bench: results in $out" >&2
