# Helpers for the turnstiled scenarios (busybox ash). Source it after lib.sh:
#   . /hil/guest/lib.sh; . /hil/guest/turnstiled.sh
#
# The board is boards/hil-gpio-sim.toml: a gpio-sim chip labelled turnstile-hil, inputs
# active-low (idle high), outputs active-high. Every scenario runs once per libgpiod generation
# (GENERATIONS), with the one binary the host built: /hil/bin/GEN/turnstiled.
#
#   board_up / board_down   a fresh chip laid out like the board, inputs idle (high)
#   ts_start GEN [ARGS]     start `turnstiled run --json` in the background ($TS_PID, $TS_OUT,
#                           $TS_ERR) and wait until it is ready; returns 1 if it never is.
#                           $BOARD names the board, $TS_PRELOAD a library to preload.
#   ts_stop [SIGNAL]        SIGTERM (or SIGNAL), wait; $TS_RC is the exit status
#   pulse LINE [MS]         press (lib.sh) an input for MS ms, default PULSE_MS
#   counter NAME            a counter from the summary record (after ts_stop)
#   record TYPE             the records of that type from $TS_OUT
#   ts_transition_t FROM EVENT TO [N [WAIT_S]]
#                           lib.sh's transition_t on $TS_OUT: the Nth such transition's time (s),
#                           waited for
#   board_relocking_after TIMEOUT FILE
#                           writes $BOARD with relock_timeout TIMEOUT (e.g. 30s) to FILE: a
#                           credit that stands while the harness (a process start per look under
#                           TCG) checks the released lock, which the board's 1 s would relock

GENERATIONS=$HIL_GENERATIONS
BOARD=/hil/boards/hil-gpio-sim.toml
BOARD_LINES="COIN PUSH SERVICE EMERGENCY LOCK ALARM READY INHIBIT"
COIN=0 PUSH=1 SERVICE=2 EMERGENCY=3 LOCK=4 ALARM=5 READY=6 INHIBIT=7
READY_TIMEOUT_S=20          # start-up, under TCG
PULSE_MS=60                 # a coin or push pulse: well over the 10 ms debounce

board_up() {
    chip_create turnstile turnstile-hil 8 "$BOARD_LINES" >/dev/null || return 1
    for line in $COIN $PUSH $SERVICE $EMERGENCY; do drive $line high; done
}

board_down() { chip_destroy turnstile; }

ts_start() {
    local gen=$1
    shift
    TS_OUT=/tmp/ts-$gen-$$.jsonl
    TS_ERR=/tmp/ts-$gen-$$.err
    env ${TS_PRELOAD:+LD_PRELOAD=$TS_PRELOAD} /hil/bin/$gen/turnstiled run --board "$BOARD" --json "$@" \
        >"$TS_OUT" 2>"$TS_ERR" &
    TS_PID=$!
    wait_for $READY_TIMEOUT_S 'grep -q "\"type\":\"ready\"" "$TS_OUT" || ! kill -0 $TS_PID 2>/dev/null' &&
        grep -q '"type":"ready"' "$TS_OUT"
}

ts_stop() {
    kill -"${1:-TERM}" "$TS_PID" 2>/dev/null
    wait "$TS_PID"
    TS_RC=$?
}

pulse() { press "$1" "${2:-$PULSE_MS}"; }

record() { grep "\"type\":\"$1\"" "$TS_OUT"; }

ts_transition_t() { transition_t "$TS_OUT" "$@"; }

board_relocking_after() { sed "s/^relock_timeout = .*/relock_timeout = \"$1\"/" "$BOARD" >"$2"; }

counter() { record summary | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"; }

# Prints the daemon's output when a scenario failed, for the log.
ts_dump() {
    info "--- turnstiled stdout"; sed 's/^/HIL INFO   /' "$TS_OUT"
    info "--- turnstiled stderr"; sed 's/^/HIL INFO   /' "$TS_ERR"
}
