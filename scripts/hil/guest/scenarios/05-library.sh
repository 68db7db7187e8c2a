#!/bin/sh
# One binary, both libgpiod generations: /hil/bin/GEN/turnstiled finds the library it is told
# to (lines and the ready record name it), the newest when none is forced, and with no libgpiod
# at all `run` on a real chip says which package to install (exit 5, as for any missing library)
# while `simulate` works.
# shellcheck disable=SC2016
. /hil/guest/lib.sh
. /hil/guest/turnstiled.sh

LIBDIR=$(dirname "$(ls /usr/lib/*/libgpiod.so.2 | head -n1)")

expected_v1="libgpiod $HIL_LIBGPIOD_V1 (libgpiod.so.2)"
expected_v2="libgpiod $HIL_LIBGPIOD_V2 (libgpiod.so.3)"
board_up
for gen in $GENERATIONS; do
    eval expected=\$expected_$gen
    first=$(/hil/bin/$gen/turnstiled lines 2>&1 | head -n1)
    check "$gen/library-lines" '[ "$first" = "$expected" ]' "lines began with '$first', not '$expected'"
    ts_start $gen || { fail "$gen/library-ready" "did not start"; ts_dump; continue; }
    version=${expected#libgpiod }; version=${version%% *}
    check "$gen/library-ready-record" 'grep -q "\"type\":\"ready\".*libgpiod $version\"" "$TS_OUT" &&
        grep -q "$expected" "$TS_ERR"' "$(head -n1 "$TS_OUT"); $(head -n3 "$TS_ERR")"
    ts_stop
done
first=$(/hil/bin/turnstiled lines 2>&1 | head -n1)
check "library-newest-by-default" '[ "$first" = "$expected_v2" ]' "lines began with '$first'"

# No libgpiod: both files moved away for the time of the check.
mkdir -p /tmp/hidden
mv "$LIBDIR/libgpiod.so.2" "$LIBDIR/libgpiod.so.3" /tmp/hidden/
err=$(/hil/bin/turnstiled run --board "$BOARD" 2>&1 >/dev/null); rc=$?
info "no libgpiod: rc=$rc: $err"
check "library-missing-run-exit-5" '[ $rc = 5 ] && echo "$err" | grep -q "apt install libgpiod3" &&
    echo "$err" | grep -q "apt install libgpiod2" && ! echo "$err" | grep -q "Fatal error"' "rc=$rc: $err"
/hil/bin/turnstiled simulate >/tmp/sim.out 2>&1; rc=$?
check "library-missing-simulate-works" '[ $rc = 0 ]' "simulate: rc=$rc: $(tail -n3 /tmp/sim.out)"
mv /tmp/hidden/libgpiod.so.2 /tmp/hidden/libgpiod.so.3 "$LIBDIR/"
board_down
