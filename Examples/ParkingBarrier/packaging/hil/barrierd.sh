# Helpers for the parking barrier's scenarios (busybox ash). Source it after lib.sh:
#   . /hil/guest/lib.sh; . /hil/guest/barrierd.sh
# shellcheck shell=dash disable=SC2034
#
# The board is this package's boards/hil-gpio-sim.toml, which scripts/hil/run.sh puts at $BOARD:
# a gpio-sim chip labelled barrier-hil, inputs active-low (idle high), outputs active-high. The arm is the plant below:
# a shell loop that reads the motor lines and drives the limit switches. Every scenario runs
# once per libgpiod generation (GENERATIONS), with /hil/bin/GEN/barrierd.
#
#   barrier_up / barrier_down
#                        a fresh chip laid out like the board, inputs idle (high) but
#                        DOWN_LIMIT active: the arm rests down
#   plant_start / plant_stop
#                        the arm, in the background ($PLANT_PID): while MOTOR_UP alone is on it
#                        rises, while MOTOR_DOWN alone is on it falls, taking PLANT_TRAVEL_MS
#                        from rest to the top; DOWN_LIMIT is active exactly at the rest and
#                        UP_LIMIT exactly at the top. Each sample with both motors on is a line
#                        in $PLANT_BOTH_ON. Each change of the motors it samples is a line
#                        "MS UPDOWN" in $PLANT_LOG (10: up alone, 01: down alone, 00: off), so a
#                        run the arm made is kept after it ended
#   plant_obstacle       the next closing meets an obstacle: once the arm has come down
#                        OBSTACLE_AT_MS of its travel, the plant breaks the photocell beam for
#                        OBSTACLE_MS (lines "MS beam-broken", "MS beam-clear" in $PLANT_LOG) —
#                        at the arm's own position, whatever the harness's shell is doing
#   plant_saw AFTER UPDOWN
#                        the plant's log has UPDOWN after the first AFTER line (beam-broken, a
#                        mark) or after the time AFTER (ms since boot, now_ms)
#   plant_stick / plant_free
#                        the arm stops moving, whatever the motors do / moves again
#   bd_start GEN [ARGS]  start `barrierd run --board $BOARD --json --no-http ARGS` in the
#                        background ($BD_PID, $BD_OUT, $BD_ERR); waits until it is ready
#   bd_stop [SIGNAL]     SIGTERM (or SIGNAL), wait; $BD_RC is the exit status
#   pulse LINE [MS]      press (lib.sh) an input for MS ms, default PULSE_MS
#   bd_ctl ARGS          `barrierd ctl --socket $BD_SOCK --json ARGS` (bd_start GEN
#                        --control-socket "$BD_SOCK" to have one)
#   bd_record TYPE       the records of that type from $BD_OUT
#   bd_counter NAME      a counter from the summary record (after bd_stop)
#   bd_transition_t FROM EVENT TO [N [WAIT_S]]
#                        lib.sh's transition_t on $BD_OUT: the Nth such transition's time (s),
#                        waited for
#   motors_both_on       the output records' times at which both motors were on (empty: never)
#   bd_dump              barrierd's stdout and stderr, for the log
#   plant_dump           the plant's log, for the log

GENERATIONS=$HIL_GENERATIONS
BOARD=/hil/boards/barrierd.toml
BARRIER_LINES="REQUEST LOOP PHOTOCELL UP_LIMIT DOWN_LIMIT SERVICE EMERGENCY MOTOR_UP MOTOR_DOWN GREEN RED ALARM"
REQUEST=0 LOOP=1 PHOTOCELL=2 UP_LIMIT=3 DOWN_LIMIT=4 SERVICE=5 EMERGENCY=6
MOTOR_UP=7 MOTOR_DOWN=8 GREEN=9 RED=10 ALARM=11
READY_TIMEOUT_S=20              # start-up, under TCG
PULSE_MS=60                     # a request or service pulse: well over the 10 ms debounce
PLANT_TRAVEL_MS=600             # rest to top: well under the board's motor_timeout (4 s)
PLANT_TICK_MS=10                # the plant's sampling period (plus a process start under TCG)
OBSTACLE_AT_MS=150              # into the arm's closing travel when the obstacle breaks the beam
OBSTACLE_MS=100                 # how long the obstacle stands in the beam
PLANT_DIR=$HIL_STATE/plant
PLANT_BOTH_ON=$PLANT_DIR/both-on
PLANT_LOG=$PLANT_DIR/log

barrier_up() {
    chip_create barrier barrier-hil 12 "$BARRIER_LINES" >/dev/null || return 1
    for line in $REQUEST $LOOP $PHOTOCELL $UP_LIMIT $SERVICE $EMERGENCY; do drive $line high; done
    drive $DOWN_LIMIT low
}

barrier_down() { chip_destroy barrier; }

# The arm. Its position is in ms of travel from the rest (0) to the top (PLANT_TRAVEL_MS); the
# clock is /proc/uptime, read in the loop itself (no process start per sample).
plant() {
    local pos=0 up down up_lim=0 down_lim=1 want last now t motors=00 obstacle=0
    read -r t _ </proc/uptime
    last=$(( ${t%.*} * 1000 + 1${t#*.} * 10 - 1000 ))
    while [ ! -e "$PLANT_DIR/stop" ]; do
        read -r up <"$CHIP_SYSFS/sim_gpio$MOTOR_UP/value"
        read -r down <"$CHIP_SYSFS/sim_gpio$MOTOR_DOWN/value"
        read -r t _ </proc/uptime
        now=$(( ${t%.*} * 1000 + 1${t#*.} * 10 - 1000 ))
        [ "$up$down" != 11 ] || echo "$now" >>"$PLANT_BOTH_ON"
        [ "$up$down" = $motors ] || { motors=$up$down; echo "$now $motors" >>"$PLANT_LOG"; }
        if [ ! -e "$PLANT_DIR/stuck" ]; then
            if [ "$up$down" = 10 ]; then
                pos=$(( pos + now - last )); [ $pos -le $PLANT_TRAVEL_MS ] || pos=$PLANT_TRAVEL_MS
            elif [ "$up$down" = 01 ]; then
                pos=$(( pos - now + last )); [ $pos -ge 0 ] || pos=0
            fi
        fi
        last=$now
        if [ $obstacle = 0 ] && [ "$up$down" = 01 ] && [ -e "$PLANT_DIR/obstacle" ] &&
            [ $pos -le $(( PLANT_TRAVEL_MS - OBSTACLE_AT_MS )) ]; then
            rm -f "$PLANT_DIR/obstacle"; drive $PHOTOCELL low; obstacle=$now
            echo "$now beam-broken" >>"$PLANT_LOG"
        elif [ $obstacle != 0 ] && [ $(( now - obstacle )) -ge $OBSTACLE_MS ]; then
            drive $PHOTOCELL high; obstacle=0
            echo "$now beam-clear" >>"$PLANT_LOG"
        fi
        want=0; [ $pos -lt $PLANT_TRAVEL_MS ] || want=1
        if [ $want != $up_lim ]; then
            if [ $want = 1 ]; then drive $UP_LIMIT low; else drive $UP_LIMIT high; fi
            up_lim=$want
        fi
        want=0; [ $pos -gt 0 ] || want=1
        if [ $want != $down_lim ]; then
            if [ $want = 1 ]; then drive $DOWN_LIMIT low; else drive $DOWN_LIMIT high; fi
            down_lim=$want
        fi
        usleep $(( PLANT_TICK_MS * 1000 ))
    done
}

plant_start() {
    rm -rf "$PLANT_DIR"; mkdir -p "$PLANT_DIR"; : >"$PLANT_BOTH_ON"; : >"$PLANT_LOG"
    plant &
    PLANT_PID=$!
}

plant_stop() {
    touch "$PLANT_DIR/stop"
    wait "$PLANT_PID" 2>/dev/null
}

plant_stick() { touch "$PLANT_DIR/stuck"; }
plant_free() { rm -f "$PLANT_DIR/stuck"; }
plant_obstacle() { touch "$PLANT_DIR/obstacle"; }

plant_saw() {
    awk -v after="$1" -v motors="$2" '
        !seen && ($2 == after || (after ~ /^[0-9]+$/ && $1 >= after)) { seen = 1; if ($2 == after) next }
        seen && $2 == motors { found = 1 }
        END { exit !found }' "$PLANT_LOG"
}

pulse() { press "$1" "${2:-$PULSE_MS}"; }

bd_start() {
    local gen=$1
    shift
    BD_OUT=/tmp/bd-$gen-$$.jsonl
    BD_ERR=/tmp/bd-$gen-$$.err
    /hil/bin/$gen/barrierd run --board "$BOARD" --json --no-http "$@" >"$BD_OUT" 2>"$BD_ERR" &
    BD_PID=$!
    wait_for $READY_TIMEOUT_S 'grep -q "\"type\":\"ready\"" "$BD_OUT" || ! kill -0 $BD_PID 2>/dev/null' &&
        grep -q '"type":"ready"' "$BD_OUT"
}

bd_stop() {
    kill -"${1:-TERM}" "$BD_PID" 2>/dev/null
    wait "$BD_PID"
    BD_RC=$?
}

bd_ctl() { /hil/bin/$gen/barrierd ctl --socket "$BD_SOCK" --json "$@"; }

bd_record() { grep "\"type\":\"$1\"" "$BD_OUT"; }

bd_counter() { bd_record summary | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"; }

bd_transition_t() { transition_t "$BD_OUT" "$@"; }

motors_both_on() {
    bd_record output | awk -F'[:,}]' '
        { for (i = 1; i < NF; i++) { if ($i == "\"t\"") t = $(i + 1); if ($i == "\"line\"") l = $(i + 1)
                                    if ($i == "\"value\"") v = $(i + 1) }
          if (l == "\"motor_up\"") up = v; if (l == "\"motor_down\"") down = v
          if (up == 1 && down == 1) print t }'
}

bd_dump() {
    info "--- barrierd stdout"; sed 's/^/HIL INFO   /' "$BD_OUT"
    info "--- barrierd stderr"; sed 's/^/HIL INFO   /' "$BD_ERR"
}

plant_dump() { info "--- the plant's log"; sed 's/^/HIL INFO   /' "$PLANT_LOG"; }
