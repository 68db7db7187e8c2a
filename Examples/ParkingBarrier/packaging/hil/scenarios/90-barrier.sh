#!/bin/sh
# The parking barrier (barrierd) on the kernel's gpio-sim chip, its arm played by the plant in
# barrierd.sh (the motor lines move it, it drives the limit switches), on each libgpiod:
#   - a request lifts the arm (motor_up) until the up limit: open, green on;
#   - a vehicle over the loop and off: the arm comes down close_delay later until the down limit;
#   - the beam broken while closing (by an obstacle the plant puts in it, at the arm's position):
#     the arm goes back up, motor_down off before motor_up on; the opening no vehicle uses closes
#     after hold_open;
#   - a stuck arm: a fault at motor_timeout, both motors off, the alarm on; a request then is
#     refused; the service key repairs it and the arm lifts;
#   - `ctl status` counts all of it; SIGTERM while the arm is closing drives motor_down off
#     before it releases the lines, exits 0, and the summary counts what ctl did and one more
#     passage; the motors were never both on, in the records or on the lines.
# A motor runs only while the arm travels (PLANT_TRAVEL_MS, less after a reversal): whether it ran
# is read from the plant's log, never by polling the line, which a loaded guest may start after
# the run ended.
# shellcheck disable=SC2016
. /hil/guest/lib.sh
. /hil/guest/barrierd.sh

VEHICLE_MS=200                  # a vehicle over the loop
SAMPLES=/tmp/barrier-motor-samples
# The board's [barrier] timings (s), with the bounds a loaded TCG guest needs above them.
CLOSE_DELAY=0.3 MOTOR_TIMEOUT=4.0 LATE=1.5
# What ctl status reports before the SIGTERM (its keys in its own order).
STATUS_COUNTERS='"expiredOpenings":1,"faults":1,"ignored":0,"passages":2,"refusedRequests":1,"repairs":1,"requests":3,"reversals":1'

sample_motor_down() { while :; do cat "$CHIP_SYSFS/sim_gpio$MOTOR_DOWN/value"; done >"$SAMPLES"; }

# After the reversal's transition, motor_down's off record comes before motor_up's on record.
reversal_breaks_before_make() {
    awk '/"event":"blocked","to":"opening"/ { r = 1; next }
         r && !d && /"line":"motor_down","value":0/ { d = NR }
         r && !u && /"line":"motor_up","value":1/ { u = NR }
         END { exit !(d && u && d < u) }' "$BD_OUT"
}

for gen in $GENERATIONS; do
    BD_SOCK=/tmp/bd-$gen.sock
    barrier_up || { fail "$gen/barrier" "no gpio-sim chip"; continue; }
    bd_start $gen --control-socket "$BD_SOCK" ||
        { fail "$gen/barrier" "barrierd did not start"; bd_dump; barrier_down; continue; }
    plant_start
    check "$gen/barrier-starts-closed" 'bd_record ready | grep -q "\"state\":\"closed\"" &&
        [ "$(output $MOTOR_UP)$(output $MOTOR_DOWN)$(output $GREEN)$(output $RED)$(output $ALARM)" = 00010 ]' \
        "$(bd_record ready), lines up/down/green/red/alarm $(output $MOTOR_UP)$(output $MOTOR_DOWN)$(output $GREEN)$(output $RED)$(output $ALARM)"

    mark=$(now_ms)
    pulse $REQUEST
    check "$gen/barrier-request-lifts" 'wait_for 5 "plant_saw $mark 10"' "the plant never saw motor_up alone" ||
        plant_dump
    check "$gen/barrier-up-limit-opens" 'wait_output $GREEN 1 5 && [ "$(output $MOTOR_UP)$(output $RED)" = 00 ] &&
        [ -n "$(bd_transition_t opening upReached open)" ]' "GREEN $(output $GREEN), MOTOR_UP $(output $MOTOR_UP)"

    mark=$(now_ms)
    press $LOOP $VEHICLE_MS
    check "$gen/barrier-vehicle-passes-closes" 'wait_for 5 "plant_saw $mark 01" && wait_output $MOTOR_DOWN 0 5 &&
        [ -n "$(bd_transition_t closing downReached closed)" ] && [ "$(output $RED)" = 1 ]' \
        "no closing run, or no closing downReached closed with red on" || { plant_dump; bd_dump; }
    out=$(bd_transition_t open vehicleOut open) closing=$(bd_transition_t open timeout closing)
    check "$gen/barrier-closes-after-close-delay" 'within "$out" "$closing" $CLOSE_DELAY $LATE' \
        "the vehicle left at ${out}s, closing at ${closing}s (close_delay ${CLOSE_DELAY}s)"

    pulse $REQUEST
    wait_output $GREEN 1 5
    plant_obstacle
    press $LOOP $VEHICLE_MS
    check "$gen/barrier-beam-reverses" 'wait_for 5 "plant_saw beam-broken 10" &&
        [ -n "$(bd_transition_t closing blocked opening)" ]' \
        "no motor_up run after the beam broke, or no closing blocked opening" || { plant_dump; bd_dump; }
    check "$gen/barrier-reversal-breaks-before-make" 'wait_for $RECORD_LAG_S reversal_breaks_before_make' \
        "$(grep -A 4 '"event":"blocked","to":"opening"' "$BD_OUT")"
    check "$gen/barrier-reversal-reopens" 'wait_output $GREEN 1 5 && [ -n "$(bd_transition_t opening upReached open 3)" ]' \
        "no third opening upReached open with green on" || bd_dump
    check "$gen/barrier-unused-opening-closes" '[ -n "$(bd_transition_t closing downReached closed 2 12)" ]' \
        "$(bd_record transition | tail -n 3)"

    plant_stick
    pulse $REQUEST
    check "$gen/barrier-stuck-arm-faults" 'wait_output $ALARM 1 8 && [ "$(output $MOTOR_UP)$(output $MOTOR_DOWN)" = 00 ]' \
        "ALARM $(output $ALARM): $(bd_record transition | tail -n 3)"
    req=$(bd_transition_t closed request opening 3) flt=$(bd_transition_t opening timeout fault)
    check "$gen/barrier-fault-at-motor-timeout" 'within "$req" "$flt" $MOTOR_TIMEOUT $LATE' \
        "opening at ${req}s, fault at ${flt}s (motor_timeout ${MOTOR_TIMEOUT}s)"
    pulse $REQUEST
    sleep_ms 300
    check "$gen/barrier-fault-refuses-request" '[ "$(output $MOTOR_UP)$(output $ALARM)" = 01 ]'
    plant_free
    pulse $SERVICE
    check "$gen/barrier-service-repairs" 'wait_output $ALARM 0 5 && wait_output $GREEN 1 5' \
        "ALARM $(output $ALARM), GREEN $(output $GREEN): $(bd_record transition | tail -n 3)"
    status=$(bd_ctl status 2>&1)
    check "$gen/barrier-ctl-status-counts" 'echo "$status" | grep -q "\"counters\":{$STATUS_COUNTERS}" &&
        echo "$status" | grep -q "\"state\":\"open\""' "ctl status: $status"

    plant_stick                              # closing runs until motor_timeout: SIGTERM before
    press $LOOP $VEHICLE_MS
    wait_output $MOTOR_DOWN 1 5
    drive $MOTOR_DOWN high                   # the level it falls to once released
    sample_motor_down & sampler=$!
    sleep_ms 50
    bd_stop
    sleep_ms 50
    kill $sampler; wait $sampler 2>/dev/null
    seen=$(uniq "$SAMPLES" | tr -d '\n')
    info "$gen: MOTOR_DOWN levels seen around SIGTERM: $seen"
    check "$gen/barrier-sigterm-exit-0" '[ "$BD_RC" = 0 ]' "exit status $BD_RC" || bd_dump
    check "$gen/barrier-sigterm-motors-off" 'bd_record stopped | grep -q "\"motor_down\":0,\"motor_up\":0" &&
        [ "$seen" = 101 ]' "expected motor_down on, off, then released to its pull (101): $seen; $(bd_record stopped)"
    check "$gen/barrier-summary-counts" 'bd_record summary | grep -q "\"state\":\"closing\"" &&
        [ "$(bd_counter requests)/$(bd_counter refusedRequests)/$(bd_counter passages)/$(bd_counter expiredOpenings)" = 3/1/3/1 ] &&
        [ "$(bd_counter reversals)/$(bd_counter faults)/$(bd_counter repairs)/$(bd_counter ignored)" = 1/1/1/0 ]' \
        "$(bd_record summary)"
    plant_stop
    check "$gen/barrier-motors-never-both-on" '[ -z "$(motors_both_on)" ] && [ ! -s "$PLANT_BOTH_ON" ]' \
        "both on in the records at $(motors_both_on | tr '\n' ' ')s, on the lines at $(tr '\n' ' ' <"$PLANT_BOTH_ON")ms"
    check "$gen/barrier-lines-free" '[ "$(gpioinfo "$CHIP_DEV" | grep -c barrierd)" = 0 ]'
    barrier_down
done
