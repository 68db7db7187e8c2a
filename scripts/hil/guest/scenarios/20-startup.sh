#!/bin/sh
# Start-up: the lock is held from the moment the daemon holds the line, before any event;
# gpioinfo shows turnstiled as the consumer; a fire alarm on at start gives emergency, and the
# outputs never show the in-service levels on the way there.
# shellcheck disable=SC2016
. /hil/guest/lib.sh
. /hil/guest/turnstiled.sh

for gen in $GENERATIONS; do
    board_up
    /hil/bin/$gen/turnstiled run --board "$BOARD" --json >/tmp/start.out 2>/tmp/start.err &
    pid=$!
    # Sample LOCK as soon as gpioinfo shows turnstiled holding it: it must already read 1.
    wait_for $READY_TIMEOUT_S 'gpioinfo "$CHIP_DEV" | grep "\"LOCK\"" | grep -q turnstiled'
    first=$(output $LOCK)
    check "$gen/startup-lock-held-when-requested" '[ "$first" = 1 ]' "LOCK read $first as soon as turnstiled held it"
    TS_OUT=/tmp/start.out TS_ERR=/tmp/start.err TS_PID=$pid
    wait_for $READY_TIMEOUT_S 'grep -q "\"type\":\"ready\"" /tmp/start.out'
    check "$gen/startup-locked-ready" '[ "$(output $LOCK)$(output $READY)$(output $INHIBIT)$(output $ALARM)" = 1100 ] &&
        grep -q "\"type\":\"ready\",\"state\":\"locked\"" /tmp/start.out' \
        "lock/ready/inhibit/alarm read $(output $LOCK)$(output $READY)$(output $INHIBIT)$(output $ALARM)"
    consumers=$(gpioinfo "$CHIP_DEV" | grep -c '"turnstiled"')
    check "$gen/startup-gpioinfo-consumer" '[ "$consumers" = 8 ]' "gpioinfo shows turnstiled on $consumers of 8 lines"
    ts_stop
    check "$gen/startup-sigterm-exit-0" '[ $TS_RC = 0 ]' "exit status $TS_RC" || ts_dump

    # A fire alarm already on when the daemon starts.
    drive $EMERGENCY low
    ts_start $gen
    check "$gen/startup-in-fire-alarm" 'grep -q "\"type\":\"ready\",\"state\":\"emergency\"" "$TS_OUT" &&
        [ "$(output $LOCK)$(output $INHIBIT)$(output $READY)" = 010 ]' \
        "state $(record ready); lock/inhibit/ready $(output $LOCK)$(output $INHIBIT)$(output $READY)" || ts_dump
    check "$gen/startup-in-fire-alarm-never-ready" '! grep -q "\"line\":\"ready\",\"value\":1" "$TS_OUT" &&
        ! grep -q "\"line\":\"inhibit\",\"value\":0" "$TS_OUT"' "the outputs passed through the in-service levels"
    drive $EMERGENCY high
    check "$gen/fire-alarm-ends-locked" 'wait_output $LOCK 1 5'
    ts_stop
    board_down
done
