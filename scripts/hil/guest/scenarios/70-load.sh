#!/bin/sh
# 600 coin/push pairs (1,200 pulses, 1,200 relay writes) through the kernel: the event loop
# allocates nothing (counted by the preloaded allocator in /hil/lib/libmalloccount.so), every
# coin is counted, and the edge-to-lock latency is reported (TCG is not hardware: not bounded).
# Debounce is 1 ms here so the run takes seconds.
# shellcheck disable=SC2016
. /hil/guest/lib.sh
. /hil/guest/turnstiled.sh

PAIRS=600
# A coin held 16 ms, then 8 ms apart: libgpiod 2's debounce is the kernel's, which reads the line
# again when its timer fires; in a guest starved by a busy host that timer once fired after an
# 8 ms press had ended, and the coin was rightly not seen (CI, stop 27: 599 of 600).
FAST_PULSE_MS=16
GAP_MS=8

for gen in $GENERATIONS; do
    board_up
    sed 's/^debounce = .*/debounce = "1ms"/' "$BOARD" >/tmp/fast.toml
    BOARD=/tmp/fast.toml TS_PRELOAD=/hil/lib/libmalloccount.so ts_start $gen ||
        { fail "$gen/load" "did not start"; ts_dump; board_down; continue; }
    i=0
    t0=$(now_ms)
    while [ $i -lt $PAIRS ]; do
        press $COIN $FAST_PULSE_MS; sleep_ms $GAP_MS
        press $PUSH $FAST_PULSE_MS; sleep_ms $GAP_MS
        i=$((i + 1))
    done
    info "$gen: $PAIRS pairs in $(( $(now_ms) - t0 )) ms"
    sleep_ms 200
    ts_stop
    stopped=$(record stopped)
    info "$gen: $stopped"
    allocations=$(echo "$stopped" | sed -n 's/.*"loopAllocations":\([0-9]*\).*/\1/p')
    check "$gen/no-allocation-per-event" '[ "$allocations" = 0 ]' "event loop allocations: ${allocations:-not counted}" || ts_dump
    check "$gen/load-every-coin-counted" '[ "$(counter coins)" = $PAIRS ] && [ "$(counter passages)" = $PAIRS ] &&
        ! echo "$stopped" | grep -q "\"lostEdges\":[1-9]"' "coins $(counter coins), passages $(counter passages): $stopped"
    samples=$(echo "$stopped" | sed -n 's/.*"samples":\([0-9]*\).*/\1/p')
    p50=$(echo "$stopped" | sed -n 's/.*"p50":\([0-9]*\).*/\1/p')
    p99=$(echo "$stopped" | sed -n 's/.*"p99":\([0-9]*\).*/\1/p')
    echo "HIL LATENCY $gen edge-to-lock over ${samples:-0} writes: p50 ${p50:-?} us, p99 ${p99:-?} us"
    check "$gen/latency-measured" '[ "${samples:-0}" -ge 200 ]' "only ${samples:-0} samples"
    board_down
done
