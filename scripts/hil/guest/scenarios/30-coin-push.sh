#!/bin/sh
# A coin releases the arm, a push locks it again; a coin with contact bounce (five flips within
# about 3 ms) counts once; the counters in the daemon's summary match.
# shellcheck disable=SC2016
. /hil/guest/lib.sh
. /hil/guest/turnstiled.sh

# A credit stands until the push uses it: the released lock is a level the checks can wait for.
board_relocking_after 30s /tmp/coin-push.toml
BOARD=/tmp/coin-push.toml

for gen in $GENERATIONS; do
    board_up
    ts_start $gen || { fail "$gen/coin-push" "turnstiled did not start"; ts_dump; board_down; continue; }
    pulse $COIN
    check "$gen/coin-releases" 'wait_output $LOCK 0 5' "LOCK stayed $(output $LOCK)"
    pulse $PUSH
    check "$gen/push-locks" 'wait_output $LOCK 1 5' "LOCK stayed $(output $LOCK)"

    # Bounce: five flips as fast as the shell writes them (about 0.4 ms each), then held.
    drive $COIN low; drive $COIN high; drive $COIN low; drive $COIN high; drive $COIN low
    sleep_ms $PULSE_MS
    drive $COIN high
    check "$gen/bouncy-coin-releases" 'wait_output $LOCK 0 5'
    pulse $PUSH
    wait_output $LOCK 1 5
    sleep_ms 100
    ts_stop
    check "$gen/counters-match" '[ "$(counter coins)" = 2 ] && [ "$(counter passages)" = 2 ] && [ "$(counter ignored)" = 0 ]' \
        "coins $(counter coins), passages $(counter passages), ignored $(counter ignored)" || ts_dump
    check "$gen/bouncy-coin-counted-once" '[ $(record transition | grep -c "\"event\":\"coin\"") = 2 ]' \
        "$(record transition | grep -c '"event":"coin"') coin transitions for two coins"
    board_down
done
