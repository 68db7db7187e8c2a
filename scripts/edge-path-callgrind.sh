#!/usr/bin/env bash
# The event path's instructions per edge, deterministically: `edge-path-probe` (release) under
# callgrind, with collection switched on by the probe itself from the edge read's return to
# the first output write (read-to-write) and to the end of `process(now:)` (read-to-return).
# Only the edges that move the lock are counted (docs/performance.md, "Edge to output through
# the kernel"). Installs Debian's valgrind when missing (its callgrind.h is what the probe's marks
# compile to).
#
#   scripts/edge-path-callgrind.sh [EDGES]        2,000 edges by default
#   scripts/edge-path-callgrind.sh --prebuilt     the release build already in .build
set -euo pipefail
cd "$(dirname "$0")/.."
prebuilt=false
[ "${1:-}" = --prebuilt ] && { prebuilt=true; shift; }
# Enough edges that the per-edge figure does not move with the count (it is the same per edge
# from a few hundred on; the warm-up is the probe's and not counted).
edges=${1:-2000}
# valgrind and objcopy as scripts/bench.sh gets them (scripts/lib/packages.sh): installed when
# missing, before the probe is built, so its marks compile against callgrind.h.
# shellcheck source=scripts/lib/packages.sh
. scripts/lib/packages.sh
packages_ensure bench
$prebuilt || swift build -c release --product edge-path-probe >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# valgrind before 3.20 cannot read the DWARF 5 debug information Swift emits; the symbol
# table is all callgrind needs to name functions.
objcopy --strip-debug "${PROBE:-.build/release/edge-path-probe}" "$work/edge-path-probe"
for span in read-to-write read-to-return; do
    valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$work/$span.out" \
        "$work/edge-path-probe" "$span" "$edges" >"$work/$span.txt" 2>"$work/$span.log" \
        || { cat "$work/$span.log" >&2; exit 1; }
    measured=$(sed -n 's/^edge-path-probe: \([0-9]*\) edges measured.*/\1/p' "$work/$span.txt")
    total=$(sed -n 's/^totals: \([0-9]*\).*/\1/p' "$work/$span.out")
    [ -n "$measured" ] && [ "$measured" -gt 0 ] && [ -n "$total" ] || { cat "$work/$span.txt" "$work/$span.log" >&2; exit 1; }
    printf '%-15s %6d edges  %10d instructions  %7d per edge\n' "$span" "$measured" "$total" $((total / measured))
done
