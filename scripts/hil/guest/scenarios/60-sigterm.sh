#!/bin/sh
# SIGTERM while the arm is released: the daemon drives the lock to its fail_mode level before it
# releases the lines, exits 0, and the lines are free for another program afterwards. The line's
# pull is set opposite to the fail level, so the drive is visible before the release.
# shellcheck disable=SC2016
. /hil/guest/lib.sh
. /hil/guest/turnstiled.sh

SAMPLES=/tmp/lock-samples

sample_lock() { while :; do cat "$CHIP_SYSFS/sim_gpio$LOCK/value"; done >"$SAMPLES"; }

for gen in $GENERATIONS; do
    for mode in secure safe; do
        board_up
        sed "s/^fail_mode = .*/fail_mode = \"$mode\"/" "$BOARD" >/tmp/fail-$mode.toml
        if [ $mode = secure ]; then fail_level=1 rest=low rest_level=0; else fail_level=0 rest=high rest_level=1; fi
        drive $LOCK $rest                    # the level the line falls to once released
        BOARD=/tmp/fail-$mode.toml ts_start $gen || { fail "$gen/sigterm-$mode" "did not start"; ts_dump; board_down; continue; }
        if [ $mode = secure ]; then pulse $COIN; wait_output $LOCK 0 5; fi   # released: secure drives it to 1
        sample_lock & sampler=$!
        sleep_ms 50
        ts_stop
        sleep_ms 50
        kill $sampler; wait $sampler 2>/dev/null
        seen=$(uniq "$SAMPLES" | tr -d '\n')
        info "$gen $mode: LOCK levels seen around SIGTERM: $seen"
        check "$gen/sigterm-$mode-exit-0" '[ $TS_RC = 0 ]' "exit status $TS_RC"
        check "$gen/sigterm-$mode-drives-fail-level" 'echo "$seen" | grep -q "$fail_level"' "never saw $fail_level: $seen"
        last=${seen#"${seen%?}"}
        check "$gen/sigterm-$mode-then-releases" 'echo "$seen" | grep -q "$fail_level$rest_level\$" && [ "$last" = $rest_level ]' \
            "expected the fail level $fail_level, then the released line at its pull $rest_level: $seen"
        check "$gen/sigterm-$mode-lines-free" 'gpioset --mode=exit "$CHIP_DEV" $LOCK=0 && [ $(gpioinfo "$CHIP_DEV" | grep -c turnstiled) = 0 ]'
        board_down
    done
done

# SIGINT (Ctrl-C) and SIGHUP (a closing terminal) stop it the same orderly way.
for gen in $GENERATIONS; do
    for signal in INT HUP; do
        board_up
        ts_start $gen || { fail "$gen/sig$signal" "did not start"; ts_dump; board_down; continue; }
        pulse $COIN
        wait_output $LOCK 0 5
        ts_stop $signal
        check "$gen/sig$signal-orderly-stop" '[ $TS_RC = 0 ] && grep -q "\"reason\":\"SIG$signal\",\"lock\":1" "$TS_OUT" &&
            [ "$(counter coins)" = 1 ]' "exit $TS_RC: $(record stopped)" || ts_dump
        board_down
    done
done
