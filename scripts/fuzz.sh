#!/usr/bin/env bash
# libFuzzer on the parsers of what users write: board files (TOML), scenarios and control-socket
# request lines (the Fuzz/ package), built with -sanitize=fuzzer,address so a crash, an overflow, a leak or a memory error
# stops the run with the input that caused it. Each target runs for FUZZ_SECONDS (default 60)
# from its seed corpus in Fuzz/corpus/, with a per-input timeout and memory limit, so a hang or
# unbounded memory is a failure too. New inputs found go to .build-fuzz/corpus/, never into git.
#
#   scripts/fuzz.sh                 every target, 60 s each
#   FUZZ_SECONDS=600 scripts/fuzz.sh
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_TARGET=${FUZZ_SECONDS:-60}
INPUT_TIMEOUT_S=5          # one input taking longer is a hang
RSS_LIMIT_MB=2048          # one input using more is unbounded memory
MAX_INPUT_BYTES=8192       # board files, scenarios and requests (4 KiB at most) are small; longer inputs only slow the search
SCRATCH=$PWD/.build-fuzz
TARGETS=(FuzzBoardFile:board FuzzScenario:scenario FuzzControlRequest:control)

# Every target in one build: the runtime's modules they share are planned and compiled once.
swift build --package-path Fuzz --scratch-path "$SCRATCH" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library 2>&1 | grep -E "error|warning: |Compiling Fuzz|Build" || true
for entry in "${TARGETS[@]}"; do
    product=${entry%%:*}
    [ -x "$SCRATCH/debug/$product" ] || { echo "error: $SCRATCH/debug/$product was not built (above)" >&2; exit 1; }
done

status=0
for entry in "${TARGETS[@]}"; do
    product=${entry%%:*} corpus=${entry#*:}
    work=$SCRATCH/corpus/$corpus
    mkdir -p "$work" "$SCRATCH/artifacts"
    log=$SCRATCH/$product.log
    echo "==> $product: $SECONDS_PER_TARGET s from Fuzz/corpus/$corpus"
    if LSAN_OPTIONS=suppressions=$PWD/scripts/lsan-suppressions.txt "$SCRATCH/debug/$product" "$work" "Fuzz/corpus/$corpus" -max_total_time="$SECONDS_PER_TARGET" \
        -timeout="$INPUT_TIMEOUT_S" -rss_limit_mb="$RSS_LIMIT_MB" -max_len="$MAX_INPUT_BYTES" \
        -artifact_prefix="$SCRATCH/artifacts/$product-" -print_final_stats=1 >"$log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        echo "    $product: ${runs:-?} inputs, no crash, hang or leak"
    else
        status=1
        echo "error: $product failed; the input is in $SCRATCH/artifacts/ (last lines of $log):" >&2
        tail -30 "$log" >&2
    fi
done
exit $status
