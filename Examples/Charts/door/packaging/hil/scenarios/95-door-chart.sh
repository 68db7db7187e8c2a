#!/bin/sh
# The door chart (doord: chartd on Examples/Charts/door's chart and binding) on the kernel's
# gpio-sim chip, on each libgpiod:
#   - the button opens the door: motor_open on for the travel timer, then off (open);
#   - the hold timer closes it: motor_close on; the beam broken while closing turns it back,
#     motor_close off, motor_open on; it closes once the beam is clear;
#   - the fire contact opens it from closed (the superstate's row) and holds it open; its end
#     brings the door back to closed;
#   - SIGTERM: exit 0, both motors off, the summary counting the two openings.
# Its board is boards/hil-gpio-sim.toml (travel 500 ms, hold 1 s).
# shellcheck disable=SC2016
. /hil/guest/lib.sh

GENERATIONS=$HIL_GENERATIONS
BOARD=/hil/boards/doord.toml
DOOR_LINES="BUTTON OBSTACLE FIRE MOTOR_OPEN MOTOR_CLOSE"
BUTTON=0 OBSTACLE=1 FIRE=2 MOTOR_OPEN=3 MOTOR_CLOSE=4
READY_TIMEOUT_S=20              # start-up, with the chart's load, under TCG
PULSE_MS=60                     # a press: well over the 10 ms debounce

door_transition_t() { transition_t "$DOOR_OUT" "$@"; }
door_dump() { info "doord stdout:"; cat "$DOOR_OUT"; info "doord stderr:"; cat "$DOOR_ERR"; }
door_counter() { grep '"type":"summary"' "$DOOR_OUT" | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"; }

for gen in $GENERATIONS; do
    chip_create door door-hil 5 "$DOOR_LINES" >/dev/null || { fail "$gen/door-chart" "no gpio-sim chip"; continue; }
    for line in $BUTTON $OBSTACLE $FIRE; do drive $line high; done
    DOOR_OUT=/tmp/door-$gen.jsonl DOOR_ERR=/tmp/door-$gen.err
    /hil/bin/$gen/doord run --board "$BOARD" --json --no-http >"$DOOR_OUT" 2>"$DOOR_ERR" &
    DOOR_PID=$!
    if ! wait_for $READY_TIMEOUT_S 'grep -q "\"type\":\"ready\"" "$DOOR_OUT" || ! kill -0 $DOOR_PID 2>/dev/null' ||
        ! grep -q '"type":"ready"' "$DOOR_OUT"; then
        fail "$gen/door-chart-starts" "doord did not start"; door_dump; chip_destroy door; continue
    fi
    check "$gen/door-chart-starts-closed" 'grep "\"type\":\"ready\"" "$DOOR_OUT" | grep -q "\"state\":\"closed\"" &&
        [ "$(output $MOTOR_OPEN)$(output $MOTOR_CLOSE)" = 00 ]' "$(grep '"type":"ready"' "$DOOR_OUT")"

    press $BUTTON $PULSE_MS
    check "$gen/door-chart-button-opens" 'wait_output $MOTOR_OPEN 1 5 && [ -n "$(door_transition_t closed open opening)" ]' \
        "MOTOR_OPEN $(output $MOTOR_OPEN)" || door_dump
    check "$gen/door-chart-travel-timer" 'wait_output $MOTOR_OPEN 0 5 && [ -n "$(door_transition_t opening travelled open)" ]' \
        "MOTOR_OPEN $(output $MOTOR_OPEN)" || door_dump
    check "$gen/door-chart-hold-timer-closes" 'wait_output $MOTOR_CLOSE 1 5 && [ -n "$(door_transition_t open held closing)" ]' \
        "MOTOR_CLOSE $(output $MOTOR_CLOSE)" || door_dump

    drive $OBSTACLE low
    check "$gen/door-chart-beam-reverses" 'wait_output $MOTOR_CLOSE 0 5 && wait_output $MOTOR_OPEN 1 5 &&
        [ -n "$(door_transition_t closing blocked opening)" ]' \
        "MOTOR_CLOSE $(output $MOTOR_CLOSE), MOTOR_OPEN $(output $MOTOR_OPEN)" || door_dump
    sleep_ms 300
    drive $OBSTACLE high
    check "$gen/door-chart-closes-when-clear" '[ -n "$(door_transition_t closing travelled closed 1 10)" ] &&
        [ "$(output $MOTOR_OPEN)$(output $MOTOR_CLOSE)" = 00 ]' "$(grep '"type":"transition"' "$DOOR_OUT" | tail -n 3)" || door_dump

    drive $FIRE low
    check "$gen/door-chart-fire-opens" 'wait_output $MOTOR_OPEN 1 5 && [ -n "$(door_transition_t closed fire fireOpening)" ]' \
        "MOTOR_OPEN $(output $MOTOR_OPEN)" || door_dump
    check "$gen/door-chart-fire-holds-open" '[ -n "$(door_transition_t fireOpening travelled fireHeld 1 5)" ] &&
        wait_output $MOTOR_OPEN 0 5' "MOTOR_OPEN $(output $MOTOR_OPEN)" || door_dump
    drive $FIRE high
    check "$gen/door-chart-fire-over" '[ -n "$(door_transition_t fireHeld fireOver closed 1 5)" ]' \
        "$(grep '"type":"transition"' "$DOOR_OUT" | tail -n 2)" || door_dump

    kill -TERM $DOOR_PID
    wait $DOOR_PID
    rc=$?
    check "$gen/door-chart-sigterm" '[ $rc = 0 ] && [ "$(output $MOTOR_OPEN)$(output $MOTOR_CLOSE)" = 00 ] &&
        [ "$(door_counter openings)" = 2 ]' \
        "exit $rc, openings $(door_counter openings): $(grep '"type":"summary"' "$DOOR_OUT")" || door_dump
    chip_destroy door
done
