#!/bin/sh
# SIGTERM while the arm is released: the daemon drives the lock to its fail_mode level before it
# releases the lines, exits 0, and the lines are free for another program afterwards. The line's
# pull is set opposite to the fail level, so the drive is visible before the release. SIGINT
# (Ctrl-C) stops it the same orderly way. SIGHUP does not stop it: it reads the board file again
# and takes the new [turnstile] timings, and refuses a board whose lines changed.
# shellcheck disable=SC2016
. /hil/guest/lib.sh
. /hil/guest/turnstiled.sh

SAMPLES=/tmp/lock-samples

RELOADED_RELOCK_S=3             # the relock timeout SIGHUP brings in (the board says 1 s)
# The stops below signal the daemon with the arm released: a credit that stands until then (the
# board's 1 s would relock it while the sampler starts on a loaded guest).
board_relocking_after 30s /tmp/standing-credit.toml

sample_lock() { while :; do cat "$CHIP_SYSFS/sim_gpio$LOCK/value"; done >"$SAMPLES"; }

# credit_s N: a coin, then the Nth credit's length in seconds (3 decimals), from its coin's record
# to its relock's (a timer's record is stamped with its deadline: the timeout in use, exactly).
credit_s() {
    local released relocked
    pulse $COIN
    relocked=$(ts_transition_t unlocked timeout locked $1 $(( RELOADED_RELOCK_S + RECORD_LAG_S )))
    released=$(ts_transition_t locked coin unlocked $1)
    [ -n "$released" ] && [ -n "$relocked" ] &&
        awk -v a="$released" -v b="$relocked" 'BEGIN { printf "%.3f\n", b - a }'
}

for gen in $GENERATIONS; do
    for mode in secure safe; do
        board_up
        sed "s/^fail_mode = .*/fail_mode = \"$mode\"/" /tmp/standing-credit.toml >/tmp/fail-$mode.toml
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

# SIGINT (Ctrl-C): the same orderly stop, the lock seen at the fail level before the release.
for gen in $GENERATIONS; do
    board_up
    drive $LOCK low                          # secure: fail level 1, released line falls to 0
    BOARD=/tmp/standing-credit.toml ts_start $gen || { fail "$gen/sigINT" "did not start"; ts_dump; board_down; continue; }
    pulse $COIN
    wait_output $LOCK 0 5
    sample_lock & sampler=$!
    sleep_ms 50
    ts_stop INT
    sleep_ms 50
    kill $sampler; wait $sampler 2>/dev/null
    seen=$(uniq "$SAMPLES" | tr -d '\n')
    info "$gen INT: LOCK levels seen around SIGINT: $seen"
    check "$gen/sigINT-orderly-stop" '[ $TS_RC = 0 ] && grep -q "\"reason\":\"stopped\",\"lock\":1" "$TS_OUT" &&
        [ "$(counter coins)" = 1 ]' "exit $TS_RC: $(record stopped)" || ts_dump
    check "$gen/sigINT-fail-level-then-releases" 'echo "$seen" | grep -q "10$"' \
        "expected the fail level 1, then the released line at its pull 0: $seen"
    board_down
done

# SIGHUP: the timings are read again without a restart; a board whose lines changed is refused
# and the running configuration stays; the daemon keeps running through both.
for gen in $GENERATIONS; do
    board_up
    cp "$BOARD" /tmp/hup.toml
    BOARD=/tmp/hup.toml ts_start $gen || { fail "$gen/sighup" "did not start"; ts_dump; board_down; continue; }
    before=$(credit_s 1)
    sed -i "s/^relock_timeout = .*/relock_timeout = \"${RELOADED_RELOCK_S}s\"/" /tmp/hup.toml
    kill -HUP $TS_PID
    check "$gen/sighup-reads-timings-again" 'wait_for 5 "grep -q \"SIGHUP: /tmp/hup.toml read again: relock_timeout $RELOADED_RELOCK_S\" \"$TS_ERR\""' \
        "no reload line in the log" || ts_dump
    after=$(credit_s 2)
    info "$gen SIGHUP: a credit lasted ${before} s before the reload, ${after} s after"
    check "$gen/sighup-new-relock-timeout" '[ "$before" = 1.000 ] && [ "$after" = $RELOADED_RELOCK_S.000 ] && kill -0 $TS_PID' \
        "credits of ${before:-no} s, then ${after:-no} s (relock_timeout 1 s, then ${RELOADED_RELOCK_S} s)" || ts_dump

    sed -i 's/^line = "PUSH"/line = "INHIBIT-TYPO"/; s/^relock_timeout = .*/relock_timeout = "1s"/' /tmp/hup.toml
    kill -HUP $TS_PID
    check "$gen/sighup-refuses-changed-lines" 'wait_for 5 "grep -q \"SIGHUP: /tmp/hup.toml refused: the \[inputs\] lines changed\" \"$TS_ERR\""' \
        "no refusal in the log" || ts_dump
    sleep_ms 200
    after=$(credit_s 3)
    check "$gen/sighup-refused-keeps-running" 'kill -0 $TS_PID && [ "$after" = $RELOADED_RELOCK_S.000 ]' \
        "after the refused reload: a credit of ${after:-no} s (the running ${RELOADED_RELOCK_S} s should stay)" || ts_dump
    ts_stop
    check "$gen/sighup-then-sigterm-exit-0" '[ $TS_RC = 0 ] && [ "$(counter coins)" = 3 ] && [ "$(counter expiredCredits)" = 3 ]' "exit $TS_RC, coins $(counter coins), expiredCredits $(counter expiredCredits)" || ts_dump
    board_down
done
