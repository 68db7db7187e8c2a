#!/usr/bin/env bash
# Dispatch benchmarks: ControllerFSM against a C switch, a Swift switch and a closure-dictionary
# machine, on the turnstile and on a generated 50 x 50 machine, all on one fixed stream of
# 1,000,000 events, in one run. Prints one comparison table.
#
#   scripts/bench.sh                    wall clock and mallocs (ordo-one/benchmark) + callgrind
#   BENCH_FILTER='turnstile\..*' scripts/bench.sh     only the benchmarks matching a regex
#   CALLGRIND_EVENTS=1000000 scripts/bench.sh        events per callgrind run (default 200000)
#   SKIP_CALLGRIND=1 scripts/bench.sh                 wall clock and mallocs only
#   SKIP_FOOTPRINT=1 scripts/bench.sh                 without the pipeline and footprint part
#   SOAK_EVENTS=1000000 scripts/bench.sh              events for the memory soak (default 10M)
#
# Then, for turnstiled itself: edge-to-relay latency on the simulated chip (p50/p99/p99.9,
# hdrhistogram), binary size with the static Swift runtime, start-up time, and resident memory
# over a soak of random inputs through the simulated lines.
#
# Wall-clock figures: one benchmark sample is one pass over the whole stream; per event =
# sample / 1,000,000; median and p99 over the samples (their count is in the table).
# Instructions per event: (Ir of a run over N events - Ir of a run over 0) / N under
# `valgrind --tool=callgrind`, so start-up (and generating the stream) cancels out.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
package=Benchmarks
events=1000000
callgrind_events=${CALLGRIND_EVENTS:-200000}
filter=${BENCH_FILTER:-.*}

# What it needs is declared in scripts/lib/packages.sh (check "bench"), the one place every
# script here installs from.
# shellcheck source=scripts/lib/packages.sh
. scripts/lib/packages.sh
packages_ensure bench

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/samples" "$work/callgrind"

echo "==> build (release)"
if ! swift build -c release --package-path "$package" >"$work/build.log" 2>&1; then
    cat "$work/build.log" >&2
    echo "error: the build failed" >&2
    exit 1
fi
grep -E "warning: " "$work/build.log" | grep -F "$root/$package/" || true
probe=$(swift build -c release --package-path "$package" --show-bin-path)/CallgrindProbe

echo "==> every implementation ends as the C switch does"
"$probe" check

echo "==> a machine with no observer has no observer code in its dispatch"
"$package/scripts/check-bare-dispatch.sh" "$probe"

echo "==> wall clock and mallocs (ordo-one/benchmark)"
swift package --package-path "$package" --allow-writing-to-directory "$work/samples" \
    benchmark --filter "$filter" --format histogramSamples --path "$work/samples" --no-progress \
    >"$work/benchmark.log" 2>&1 || { cat "$work/benchmark.log" >&2; echo "error: the benchmark run failed" >&2; exit 1; }

if [ -z "${SKIP_CALLGRIND:-}" ]; then
    echo "==> instructions per event (callgrind, $callgrind_events events against 0)"
    # valgrind before 3.20 cannot read the DWARF 5 debug information Swift emits; the symbol
    # table is all callgrind needs to name functions.
    objcopy --strip-debug "$probe" "$work/CallgrindProbe"
    for file in "$work"/samples/*.wallClock.histogram.samples.tsv; do
        name=$(basename "$file" .wallClock.histogram.samples.tsv)
        name=${name#Current_run.DispatchBenchmarks.}
        machine=${name%%.*}
        implementation=${name#*.}
        for count in 0 "$callgrind_events"; do
            valgrind --tool=callgrind --callgrind-out-file="$work/callgrind/$name.$count.out" \
                "$work/CallgrindProbe" "$machine" "$implementation" "$count" >/dev/null 2>"$work/callgrind/$name.$count.log" \
                || { cat "$work/callgrind/$name.$count.log" >&2; exit 1; }
        done
    done
fi

echo
python3 "$package/scripts/bench-table.py" "$work/samples" "$work/callgrind" "$events" "$callgrind_events"
echo
echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); $(swift --version 2>/dev/null | sed -n 1p)"

if [ -z "${SKIP_FOOTPRINT:-}" ]; then
    echo
    echo "==> edge-to-relay latency (simulated chip; the trace drained by another thread)"
    swift build -c release --package-path "$package" --product PipelineLatency >"$work/latency-build.log" 2>&1 \
        || { cat "$work/latency-build.log" >&2; exit 1; }
    "$(swift build -c release --package-path "$package" --show-bin-path)/PipelineLatency" 200000

    echo
    echo "==> turnstiled footprint (release, --static-swift-stdlib)"
    # The binary as it ships: the release script's build (for size), in .build.
    scripts/release-build.sh turnstiled >"$work/static-build.log" 2>&1 \
        || { cat "$work/static-build.log" >&2; exit 1; }
    binary=.build/release/turnstiled
    cp "$binary" "$work/turnstiled-stripped" && strip "$work/turnstiled-stripped"
    echo "binary: $(( $(stat -c %s "$binary") / 1024 )) KiB, stripped $(( $(stat -c %s "$work/turnstiled-stripped") / 1024 )) KiB; needs: $(ldd "$binary" | awk '{print $1}' | grep -v -e linux-vdso -e ld-linux | xargs)"
    printf '0 end\n' >"$work/empty.scenario"
    times=()
    for _ in $(seq 21); do
        start=$(date +%s%N)
        "$binary" simulate --script "$work/empty.scenario" >/dev/null
        times+=($(( ($(date +%s%N) - start) / 1000 )))
    done
    median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 11p)
    echo "start-up: exec to exit of 'turnstiled simulate' on an empty scenario (board parsed, lines requested, controller started): median ${median} µs of 21 runs"
    echo
    "$binary" soak --events "${SOAK_EVENTS:-10000000}"
fi
