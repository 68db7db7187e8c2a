#!/bin/sh
# What a user sees when it cannot work: a line held by another program (named), a chip that is
# not there (every chip listed), a line name the chip lacks (its names listed), a user without
# access to the device (the fix named). Each
# exits 3 with one message and no crash report.
# shellcheck disable=SC2016
. /hil/guest/lib.sh
. /hil/guest/turnstiled.sh

for gen in $GENERATIONS; do
    board_up
    gpioset --mode=signal "$CHIP_DEV" $LOCK=1 &
    holder=$!
    wait_for 5 'gpioinfo "$CHIP_DEV" | grep "\"LOCK\"" | grep -q gpioset'
    err=$(/hil/bin/$gen/turnstiled run --board "$BOARD" 2>&1 >/dev/null); rc=$?
    info "$gen busy: rc=$rc: $err"
    check "$gen/refuse-line-busy" '[ $rc = 3 ] && ! echo "$err" | grep -q "Fatal error\|Stack dump" && echo "$err" | grep -q "is busy: consumer \"gpioset\" holds it" &&
        echo "$err" | grep -q "\"LOCK\""' "rc=$rc: $err"
    kill $holder; wait $holder 2>/dev/null

    sed 's/^chip = "turnstile-hil"/chip = "no-such-chip"/' "$BOARD" >/tmp/missing.toml
    err=$(/hil/bin/$gen/turnstiled run --board /tmp/missing.toml 2>&1 >/dev/null); rc=$?
    info "$gen missing chip: rc=$rc: $err"
    check "$gen/refuse-chip-not-found" '[ $rc = 3 ] && ! echo "$err" | grep -q "Fatal error\|Stack dump" && echo "$err" | grep -q "not found: looked for label \"no-such-chip\"" &&
        echo "$err" | grep -q "\[turnstile-hil\] (8 lines"' "rc=$rc: $err"

    sed 's/^line = "PUSH"/line = "PUSH-TYPO"/' "$BOARD" >/tmp/typo.toml
    err=$(/hil/bin/$gen/turnstiled run --board /tmp/typo.toml 2>&1 >/dev/null); rc=$?
    info "$gen line not found: rc=$rc: $err"
    check "$gen/refuse-line-not-found" '[ $rc = 3 ] && echo "$err" | grep -q "no line named \"PUSH-TYPO\"" &&
        echo "$err" | grep -q "\"COIN\", \"PUSH\", \"SERVICE\""' "rc=$rc: $err"

    err=$(as_user nobody /hil/bin/$gen/turnstiled run --board "$BOARD" 2>&1 >/dev/null); rc=$?
    info "$gen as nobody: rc=$rc: $err"
    check "$gen/refuse-permission" '[ $rc = 3 ] && ! echo "$err" | grep -q "Fatal error\|Stack dump" && echo "$err" | grep -q "permission denied opening GPIO chip" &&
        echo "$err" | grep -q "gpio"' "rc=$rc: $err"
    board_down
done
