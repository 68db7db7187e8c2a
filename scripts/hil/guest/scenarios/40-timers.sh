#!/bin/sh
# Timers in real time (boards/hil-gpio-sim.toml: relock 1 s, repair 1 s, jam 2 s, alarm pulse
# 300 ms): an unused credit expires and relocks; a repair takes the turnstile out of service for
# the repair period; a push held past the jam timeout breaks it and sounds the alarm.
# shellcheck disable=SC2016
. /hil/guest/lib.sh
. /hil/guest/turnstiled.sh

for gen in $GENERATIONS; do
    board_up
    ts_start $gen || { fail "$gen/timers" "turnstiled did not start"; ts_dump; board_down; continue; }

    pulse $COIN
    wait_output $LOCK 0 5
    t0=$(now_ms)
    wait_output $LOCK 1 5
    waited=$(( $(now_ms) - t0 ))
    check "$gen/relock-timeout" '[ $waited -ge 800 ] && [ $waited -le 2500 ]' "relocked after $waited ms (relock_timeout 1 s)"

    pulse $SERVICE
    check "$gen/repair-out-of-service" 'wait_for 5 "[ \"\$(output $INHIBIT)\$(output $READY)\" = 10 ]"'
    t0=$(now_ms)
    wait_for 5 '[ "$(output $READY)" = 1 ]'
    waited=$(( $(now_ms) - t0 ))
    check "$gen/repair-period" '[ $waited -ge 700 ] && [ $waited -le 2500 ]' "back in service after $waited ms (repair_period 1 s)"

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
