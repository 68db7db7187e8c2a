#!/bin/sh
# libgpiod 2.x on the kernel's gpio-sim chip, through libgpiod's own v2 tools (v2 command line:
# gpioset -c CHIP OFFSET=VALUE), where the guest has them ($HIL_TOOLS_V2: arm64 carries trixie's
# gpiod): the chip seen, an output held and read back, EBUSY on a held line, edge events, and
# the kernel's debounce folding a burst of contact bounce into one edge. The project's binaries
# check the same library in 05-library and 10-contract; this needs none of them. Skipped where
# the guest has no v2 tools (amd64: libgpiod 2.3 is built from the PyPI sdist, without tools).
# shellcheck disable=SC2016  # check/wait_for conditions are single-quoted for eval
# shellcheck source=scripts/hil/guest/lib.sh
. /hil/guest/lib.sh

if [ ! -x "$HIL_TOOLS_V2/gpioset" ]; then
    info "no libgpiod 2.x tools in this guest ($HIL_TOOLS_V2): skipped"
    exit 0
fi
T=$HIL_TOOLS_V2
SETTLE_S=5                      # longest wait for a request, a release or an event to show
DEBOUNCE_MS=100                 # the kernel debounce asked of gpiomon: a burst must fit in it
                                # (5 writes to sim_gpio0/pull take 10-40 ms on aarch64 TCG)
PRESS_MS=300                    # a clean press: held well over the debounce period
BOUNCES=5                       # flips in one burst: one edge once the debounce period is quiet
QUIET_MS=400                    # well over the debounce, and a debounce timer's lateness under TCG
BURST_TRIES=3                   # bursts the guest may be preempted in before the check gives up
CLOCK_MS=10                     # now_ms's resolution (/proc/uptime; read without a process start,
                                # unlike now_us, whose two processes would be most of the burst)

LINES="COIN PUSH SERVICE EMERGENCY LOCK ALARM READY INHIBIT"   # offsets 0..7
COIN=0 LOCK=4

chip_create tools-v2 tools-v2-hil 8 "$LINES" >/dev/null || { fail v2/chip-create "configfs"; exit 1; }
drive $COIN high
check v2/gpiodetect-label '"$T/gpiodetect" | grep -q "^$CHIP_NAME \[tools-v2-hil\] (8 lines)"' \
    "$("$T/gpiodetect" 2>&1)"

# An output held by gpioset (v2: it holds the line until it is killed) shows on sim_gpioK/value.
"$T/gpioset" -c "$CHIP_NAME" -C hil-v2 $LOCK=1 &
holder=$!
check v2/gpioset-drives-output 'wait_for $SETTLE_S "[ \"\$(output $LOCK)\" = 1 ]"' \
    "LOCK value stayed $(output $LOCK)"
err=$("$T/gpioget" -c "$CHIP_NAME" $LOCK 2>&1)
rc=$?
info "v2 gpioget of the held line: rc=$rc: $err"
check v2/second-request-ebusy '[ $rc -ne 0 ] && echo "$err" | grep -qi "busy"' "rc=$rc: $err"
kill "$holder"
wait "$holder" 2>/dev/null
check v2/release-frees-line 'wait_for $SETTLE_S "\"\$T/gpioinfo\" -c \"\$CHIP_NAME\" $LOCK | grep -qv hil-v2"'

# Inputs: the level as driven (bias as-is), then edges. gpiomon asks the kernel for its debounce.
drive $COIN low
check v2/gpioget-low '[ "$("$T/gpioget" -c "$CHIP_NAME" --numeric $COIN)" = 0 ]'
drive $COIN high
check v2/gpioget-high '[ "$("$T/gpioget" -c "$CHIP_NAME" --numeric $COIN)" = 1 ]'

EVENTS=/tmp/v2-events
"$T/gpiomon" -c "$CHIP_NAME" -C hil-mon -e falling -p "${DEBOUNCE_MS}ms" $COIN >"$EVENTS" 2>&1 &
mon=$!
# Edges are only seen once the request is made: wait for the kernel to show the consumer.
if ! wait_for $SETTLE_S '"$T/gpioinfo" -c "$CHIP_NAME" $COIN | grep -q hil-mon'; then
    fail v2/gpiomon-request "gpiomon never held the line: $(cat "$EVENTS")"
else
    falls() { grep -c falling "$EVENTS"; }
    # One clean press: one falling edge.
    press $COIN $PRESS_MS
    check v2/gpiomon-edge 'wait_for $SETTLE_S "[ \$(falls) -ge 1 ]" && [ "$(falls)" = 1 ]' \
        "$(falls) falling edges: $(tr '\n' '|' <"$EVENTS")"
    # The release is debounced too: until the line has been quiet for DEBOUNCE_MS the kernel
    # still holds it low, and a burst begun sooner ends low against a low line, which is rightly
    # no edge at all (seen once under TCG, where the check above can take under 100 ms). Every
    # burst below starts from a high the kernel has already taken.
    sleep_ms $QUIET_MS
    # Contact bounce: BOUNCES flips as fast as the shell writes (about 0.4 ms each), ending low;
    # the debounced line sees one fall once it has been quiet for DEBOUNCE_MS. The check holds
    # only for a burst shorter than the debounce period: a guest preempted mid-burst (one vCPU
    # under TCG; gpiomon's own wake-ups) can stretch it past that, and such a burst is rightly
    # more than one edge. Its length is measured, and a burst too long is made again.
    try=1
    while :; do
        before=$(falls)
        t0=$(now_ms)
        i=1
        while [ $i -lt $BOUNCES ]; do drive $COIN low; drive $COIN high; i=$((i + 2)); done
        drive $COIN low
        burst_ms=$(( $(now_ms) - t0 ))
        wait_for $SETTLE_S '[ $(falls) -gt $before ]'
        sleep_ms $QUIET_MS      # a second edge from the burst would come within the debounce period
        got=$(( $(falls) - before ))
        info "burst $try: $BOUNCES flips in $burst_ms ms (+-$CLOCK_MS), $got falling edge(s) (debounce $DEBOUNCE_MS ms)"
        drive $COIN high
        sleep_ms $QUIET_MS
        [ $((burst_ms + CLOCK_MS)) -ge $DEBOUNCE_MS ] && [ $try -lt $BURST_TRIES ] || break
        try=$((try + 1))
    done
    check v2/debounce-one-edge '[ $((burst_ms + CLOCK_MS)) -lt $DEBOUNCE_MS ] && [ "$got" = 1 ]' \
        "$got falling edges from a burst of $burst_ms ms (+-$CLOCK_MS; the debounce is $DEBOUNCE_MS): $(tr '\n' '|' <"$EVENTS")"
fi
kill "$mon" 2>/dev/null
wait "$mon" 2>/dev/null
info "v2 events: $(tr '\n' '|' <"$EVENTS")"
chip_destroy tools-v2
check v2/chip-destroy '[ ! -d "$HIL_CONFIGFS/tools-v2" ]'
