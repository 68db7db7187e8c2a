#!/bin/sh
# Smoke test of the plumbing with apt's libgpiod 1.6 tools (v1 command line: gpioset --mode=...):
# a gpio-sim chip shaped like the turnstile board, outputs read back, EBUSY on a held line,
# inputs driven, bias rewriting the simulator's pull, and permissions of the device node.
# shellcheck disable=SC2016  # check/wait_for conditions are single-quoted for eval
# shellcheck source=scripts/hil/guest/lib.sh
. /hil/guest/lib.sh

SETTLE_S=2                      # longest wait for a line to change after a request/release

LINES="COIN PUSH SERVICE EMERGENCY LOCK ALARM READY INHIBIT"   # offsets 0..7
COIN=0 LOCK=4

chip_create turnstile turnstile-hil 8 "$LINES" || { fail chip-create "configfs"; exit 1; }
pass chip-create

info_out=$(gpioinfo "$CHIP_DEV" 2>&1)
echo "$info_out"
missing=
for l in $LINES; do
    echo "$info_out" | grep -q "\"$l\"" || missing="$missing $l"
done
check gpioinfo-names '[ -z "$missing" ]' "names missing:$missing"
check gpiodetect-label 'gpiodetect | grep -q "$CHIP_NAME \[turnstile-hil\] (8 lines)"'

# An output held by a consumer shows on sim_gpioK/value.
gpioset --mode=signal "$CHIP_DEV" $LOCK=1 &
holder=$!
check gpioset-drives-output 'wait_for $SETTLE_S "[ \"\$(output $LOCK)\" = 1 ]"' \
    "LOCK value stayed $(output $LOCK)"

# A second request of the held line fails with EBUSY.
err=$(gpioset --mode=exit "$CHIP_DEV" $LOCK=0 2>&1)
rc=$?
info "second gpioset: rc=$rc: $err"
check second-request-ebusy '[ $rc -ne 0 ] && echo "$err" | grep -qi "busy"' "rc=$rc: $err"

kill "$holder"
wait "$holder" 2>/dev/null
check release-frees-line 'wait_for $SETTLE_S "gpioset --mode=exit $CHIP_DEV $LOCK=0 2>/dev/null"'

# Inputs follow the simulator's pull; gpioget (bias as-is) does not disturb it.
drive $COIN low
check gpioget-low '[ "$(gpioget "$CHIP_DEV" $COIN)" = 0 ]'
drive $COIN high
check gpioget-high '[ "$(gpioget "$CHIP_DEV" $COIN)" = 1 ]'

# A request with a bias rewrites gpio-sim's pull for that line, until the harness writes it again.
drive $COIN low
check bias-overrides-pull '[ "$(gpioget -B pull-up "$CHIP_DEV" $COIN)" = 1 ] &&
    [ "$(gpioget "$CHIP_DEV" $COIN)" = 1 ]' "pull-up request did not stick"
drive $COIN low
check drive-reasserts-pull '[ "$(gpioget "$CHIP_DEV" $COIN)" = 0 ]'

# devtmpfs makes gpiochip nodes root-only (0600): an unprivileged user is refused.
info "$(ls -l "$CHIP_DEV")"
check devnode-root-only '[ "$(stat -c "%a %u" "$CHIP_DEV")" = "600 0" ]' \
    "mode/owner $(stat -c "%a %u" "$CHIP_DEV")"
err=$(as_user nobody gpioinfo "$CHIP_DEV" 2>&1)
rc=$?
info "gpioinfo as nobody: rc=$rc: $err"
check unprivileged-denied '[ $rc -ne 0 ] && echo "$err" | grep -q "Permission denied"' "rc=$rc: $err"

chip_destroy turnstile
check chip-destroy '[ ! -e "$CHIP_DEV" ] && [ ! -d "$HIL_CONFIGFS/turnstile" ]'
