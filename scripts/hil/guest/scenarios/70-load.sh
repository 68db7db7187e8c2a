#!/bin/sh
# 600 coin/push pairs (1,200 pulses, 1,200 relay writes) through the kernel: the event loop
# allocates nothing (counted by the preloaded allocator in /hil/lib/libmalloccount.so), every
# coin is counted, and the edge-to-lock latency is reported (TCG is not hardware: not bounded).
# Debounce is 1 ms here so the run takes seconds.
#
# Each press is held until the daemon has acted on it (LOCK released for a coin, locked again for
# a push), then released: libgpiod 2's debounce is the kernel's, which reads the line again when
# its timer fires, and in a guest starved by a busy host that timer fired after a press of a
# fixed length had ended, and the press was rightly not seen (CI, stop 27: 599 of 600 with 8 ms
# presses; arm64 under TCG on a loaded host: 599 passages with 16 ms ones). A press the daemon
# never acts on within PRESS_TIMEOUT_S is a failure of its own.
# A release has no effect to wait for, and the kernel's debounce drops a release it has not read
# before the line falls again (a high blip shorter than the period; arm64 under TCG: coin 213 of
# 600 never seen). The lines alternate, so the next press of the same line comes only after the
# daemon acted on the other line's press, and that press's debounce timer was armed GAP_MS after
# the release's: a later jiffy, so the release is read first (timers of one jiffy run in the
# order the kernel added them, last first, and the two would otherwise have shared one).
# shellcheck disable=SC2016
. /hil/guest/lib.sh
. /hil/guest/turnstiled.sh

PAIRS=600
PRESS_TIMEOUT_S=10              # a press the daemon has not acted on by then was lost
GAP_MS=8                        # release to the other line's press: two jiffies at HZ=250
HOLD_POLL_US=1000               # the hold's polling period (a usleep: a process start under TCG)

# hold_until OFFSET VALUE: press OFFSET (active-low) until LOCK reads VALUE, then release it.
# The level is read with the shell's own `read`, and the looks are counted rather than timed:
# no process start per look but the usleep. Returns 1 when LOCK has not read VALUE after
# PRESS_TIMEOUT_S worth of polls (at least that long: a usleep lasts at least its period); the
# line is released all the same.
HOLD_POLLS=$(( PRESS_TIMEOUT_S * 1000000 / HOLD_POLL_US ))
hold_until() {
    local v n=0
    drive "$1" low
    while read -r v <"$CHIP_SYSFS/sim_gpio$LOCK/value" && [ "$v" != "$2" ]; do
        [ $n -lt $HOLD_POLLS ] || { drive "$1" high; return 1; }
        n=$((n + 1))
        usleep $HOLD_POLL_US
    done
    drive "$1" high
}

for gen in $GENERATIONS; do
    board_up
    # A credit stands until its push (the board relocks after 1 s, which a starved guest can
    # take between a coin and its push; the push would then find the arm locked).
    board_relocking_after 30s /tmp/fast-relock.toml
    sed 's/^debounce = .*/debounce = "1ms"/' /tmp/fast-relock.toml >/tmp/fast.toml
    BOARD=/tmp/fast.toml TS_PRELOAD=/hil/lib/libmalloccount.so ts_start $gen ||
        { fail "$gen/load" "did not start"; ts_dump; board_down; continue; }
    i=0 lost=""
    t0=$(now_ms)
    while [ $i -lt $PAIRS ]; do
        hold_until $COIN 0 || { lost="coin $((i + 1)): LOCK stayed 1"; break; }
        sleep_ms $GAP_MS
        hold_until $PUSH 1 || { lost="push $((i + 1)): LOCK stayed 0"; break; }
        sleep_ms $GAP_MS
        i=$((i + 1))
    done
    info "$gen: $i pairs in $(( $(now_ms) - t0 )) ms${lost:+; then $lost}"
    check "$gen/load-every-press-acted-on" '[ -z "$lost" ]' "after $i pairs, $lost within ${PRESS_TIMEOUT_S}s"
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
