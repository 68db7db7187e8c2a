#!/bin/sh
# Timers in real time (boards/hil-gpio-sim.toml: relock 1 s, repair 1 s, jam 2 s, alarm pulse
# 300 ms): an unused credit expires and relocks; a repair takes the turnstile out of service for
# the repair period; a push held past the jam timeout breaks it and sounds the alarm.
# A timer's length is read from the records (a timer's record is stamped with its deadline); that
# it ran in real time, from the shell's clock around it: at least the timer from before the input
# to its record, at most LATE_MS more. The released lock and the out-of-service lines hold for a
# second only, so their levels are read from the output records, not by polling the lines.
# shellcheck disable=SC2016
. /hil/guest/lib.sh
. /hil/guest/turnstiled.sh

RELOCK_S=1 REPAIR_S=1           # the board's relock_timeout and repair_period
LATE_MS=1500                    # a timer's record after its deadline, on a loaded TCG guest
CLOCK_MS=10                     # now_ms's resolution (/proc/uptime)

# in_real_time WAITED_MS TIMER_S: the shell waited at least the timer (less now_ms's resolution)
# and at most LATE_MS more.
in_real_time() { [ $1 -ge $(( $2 * 1000 - CLOCK_MS )) ] && [ $1 -le $(( $2 * 1000 + LATE_MS )) ]; }

for gen in $GENERATIONS; do
    board_up
    ts_start $gen || { fail "$gen/timers" "turnstiled did not start"; ts_dump; board_down; continue; }

    t0=$(now_ms)
    pulse $COIN
    relocked=$(ts_transition_t unlocked timeout locked 1 $(( RELOCK_S + RECORD_LAG_S )))
    waited=$(( $(now_ms) - t0 ))
    coin=$(ts_transition_t locked coin unlocked)
    check "$gen/relock-timeout" 'within "$coin" "$relocked" $RELOCK_S 0 && in_real_time $waited $RELOCK_S &&
        [ "$(outputs_at "$TS_OUT" "$coin")" = "lock=0 " ] && wait_output $LOCK 1 5' \
        "released at ${coin}s, relocked at ${relocked}s (relock_timeout ${RELOCK_S} s), its record $waited ms after the coin's pulse began" ||
        ts_dump

    t0=$(now_ms)
    pulse $SERVICE
    back=$(ts_transition_t outOfOrder timeout locked 1 $(( REPAIR_S + RECORD_LAG_S )))
    waited=$(( $(now_ms) - t0 ))
    repair=$(ts_transition_t locked repair outOfOrder)
    check "$gen/repair-out-of-service" '[ "$(outputs_at "$TS_OUT" "$repair")" = "ready=0 inhibit=1 " ]' \
        "the repair at ${repair}s drove $(outputs_at "$TS_OUT" "$repair")" || ts_dump
    check "$gen/repair-period" 'within "$repair" "$back" $REPAIR_S 0 && in_real_time $waited $REPAIR_S &&
        wait_for 5 "[ \"\$(output $INHIBIT)\$(output $READY)\" = 01 ]"' \
        "out of service at ${repair}s, back at ${back}s (repair_period ${REPAIR_S} s), its record $waited ms after the service pulse began" ||
        ts_dump

    drive $PUSH low
    check "$gen/jam-breaks" 'wait_for 6 "[ \"\$(output $ALARM)\" = 1 ] && grep -q \"\\\"to\\\":\\\"broken\\\"\" \"$TS_OUT\""' \
        "alarm $(output $ALARM) after holding the push"
    sleep_ms 500
    check "$gen/jam-alarm-continuous" '[ "$(output $ALARM)$(output $LOCK)" = 11 ]'
    drive $PUSH high
    pulse $SERVICE
    wait_for 5 '[ "$(output $READY)" = 1 ]'
    ts_stop
    check "$gen/timer-counters" '[ "$(counter expiredCredits)" = 1 ] && [ "$(counter faults)" = 1 ] && [ "$(counter repairs)" = 2 ]' \
        "expiredCredits $(counter expiredCredits), faults $(counter faults), repairs $(counter repairs)" || ts_dump
    board_down
done
