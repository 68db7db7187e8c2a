#!/bin/sh
# The guest half of Benchmarks/scripts/edge-latency.sh: inside the HIL VM (busybox sh), time a
# gpio-sim edge to the output line's change for turnstiled and for edge-follower (the minimal
# libgpiod program), on each libgpiod generation, and print the figures. Nothing here is specific
# to the machine's architecture: the programs it runs are built for the guest by the host script,
# and everything else is gpio-sim's sysfs and the kernel's tracefs.
#
# The host script adds this file to the VM as HIL scenarios (/hil/guest/scenarios/), once per
# round, NAME-round-NN.sh, and once more as NAME-summary.sh, which sorts after them: the harness's
# suite runs each as a process of its own under its time limit, and the file's name says what to
# do. Samples collect in /tmp/edge-latency between them.
#
# Input, from the host:
#   /hil/edge-latency.conf       CYCLES, WARMUP, ROUNDS, GAP_US, GENERATIONS ("v1 v2"), PROGRAMS
#                                ("turnstiled edge-follower"), HTTP_PORT
#   /hil/bin/edge/probe          edge-probe.c (makes the edges, times the answers)
#   /hil/bin/edge/follower-GEN   edge-follower.c, linked with libgpiod 1.6 (v1) or 2.3 (v2)
#   /hil/bin/GEN/turnstiled      the harness's: the release binary on that generation
#
# A round starts every (program, generation) once, in turn, on a fresh chip laid out like
# boards/hil-gpio-sim.toml, and runs CYCLES coin/push cycles of the probe against it (2 measured
# edges a cycle, after WARMUP cycles not counted); rounds interleave the programs so that a
# change in the host's load falls on all of them. The board is hil-gpio-sim.toml with every
# debounce 0 (the follower asks for 0 as well) and relock_timeout 30 s (a credit must not expire
# between the coin and the push on a stalled guest). turnstiled runs with the command line of
# the .deb's unit (--database, --control-socket, --http on loopback), with --json.
#
# Output of the summary, per (program, generation), one line:
#   EDGE RESULT program=P libgpiod=V edges=N traced_edges=N traced_p50_us=.. traced_p99_us=..
#               traced_max_us=.. polled_p50_us=.. polled_p99_us=.. polled_max_us=..
#               traced_after_polled=K
# and "HIL PASS edge-latency/P/GEN" when every edge was answered and timed.
# shellcheck disable=SC2016,SC2034   # conditions are eval'd by check; BOARD is turnstiled.sh's
. /hil/guest/lib.sh
. /hil/guest/turnstiled.sh

CONF=/hil/edge-latency.conf
EDGE_BIN=$HIL_BIN/edge
WORK=/tmp/edge-latency
TRACEFS=/sys/kernel/tracing
FOLLOWER_READY_TIMEOUT_S=10
CYCLES=100 WARMUP=10 ROUNDS=5 GAP_US=50000 GENERATIONS="v1 v2" PROGRAMS="turnstiled edge-follower"
HTTP_PORT=8080
# shellcheck disable=SC1090
[ -f "$CONF" ] && . "$CONF"
mkdir -p "$WORK"

# The library version a generation stands for, as the table names it.
library_version() {
    case $1 in
        v1) echo 1.6.3 ;;
        v2) echo 2.3 ;;
    esac
}

# LOCK's global GPIO number (the gpio:gpio_value trace event's `gpio`): the legacy sysfs class
# names each chip gpiochipBASE. Empty when the kernel has no GPIO sysfs.
lock_gpio() {
    local chip
    for chip in /sys/class/gpio/gpiochip*; do
        if [ -f "$chip/label" ] && [ "$(cat "$chip/label")" = turnstile-hil ]; then
            echo $((${chip##*/gpiochip} + LOCK))
            return
        fi
    done
}

# start PROGRAM GEN: hold the lines; sets STOP (the command that ends it).
start() {
    case $1 in
        turnstiled)
            rm -f "$WORK/counts.sqlite" "$WORK/control.sock"
            ts_start "$2" --database "$WORK/counts.sqlite" --control-socket "$WORK/control.sock" \
                --http "127.0.0.1:$HTTP_PORT" || { ts_dump; return 1; }
            STOP=ts_stop
            ;;
        edge-follower)
            "$EDGE_BIN/follower-$2" "$CHIP_DEV" "$COIN" "$PUSH" "$LOCK" 0 >"$WORK/follower.out" 2>&1 &
            FOLLOWER_PID=$!
            wait_for $FOLLOWER_READY_TIMEOUT_S 'grep -q "^ready" "$WORK/follower.out" || ! kill -0 $FOLLOWER_PID 2>/dev/null'
            grep -q "^ready" "$WORK/follower.out" || { cat "$WORK/follower.out"; return 1; }
            info "$(cat "$WORK/follower.out")"
            STOP=stop_follower
            ;;
    esac
}
stop_follower() { kill "$FOLLOWER_PID"; wait "$FOLLOWER_PID" 2>/dev/null; }

# The daemon's own figure, from its "stopped" record: kernel edge timestamp to the lock write's
# return, warm-up edges and start-up writes included (for comparison, not for the table).
daemon_latency() {
    local stopped
    stopped=$(record stopped)
    echo "$stopped" | sed -n 's/.*"samples":\([0-9]*\).*"p50":\([0-9]*\).*"p99":\([0-9]*\).*/its own edge-to-lock: p50 \2 us, p99 \3 us over \1 writes/p'
}

failed() { grep -qx "$1" "$WORK/failed" 2>/dev/null; }

# measure_round N: every (program, generation) once, in turn.
measure_round() {
    local round=$1 gen program name gpio trace t0 took own
    for gen in $GENERATIONS; do
        for program in $PROGRAMS; do
            name=$program/$gen
            failed "$name" && continue
            board_up
            if ! start "$program" "$gen"; then
                fail "edge-latency/$name" "did not start (round $round)"
                echo "$name" >>"$WORK/failed"
                board_down
                continue
            fi
            gpio=$(lock_gpio)
            trace=""
            [ -n "$gpio" ] && [ -d "$TRACEFS/events/gpio" ] && trace="--trace-gpio $gpio --tracefs $TRACEFS"
            t0=$(now_ms)
            # shellcheck disable=SC2086
            if ! "$EDGE_BIN/probe" --sysfs "$CHIP_SYSFS" --coin "$COIN" --push "$PUSH" --lock "$LOCK" \
                    --cycles "$CYCLES" --warmup "$WARMUP" --gap-us "$GAP_US" $trace \
                    >>"$WORK/$program-$gen.samples" 2>"$WORK/probe.err"; then
                fail "edge-latency/$name" "round $round: $(cat "$WORK/probe.err")"
                echo "$name" >>"$WORK/failed"
            fi
            took=$(( $(now_ms) - t0 ))
            $STOP
            own=""
            [ "$program" = turnstiled ] && own="; $(daemon_latency)"
            info "edge-latency: round $round $name: $CYCLES cycles in $took ms; $(cat "$WORK/probe.err")$own"
            board_down
        done
    done
}

# stats FILE COLUMN: "N P50 P99 MAX" of a samples file's column (nanoseconds in, microseconds
# out, nearest-rank percentiles; "0 - - -" when the column has no figure).
stats() {
    awk -v c="$2" '$c != "-" { print $c }' "$1" | sort -n | awk '
        { v[NR] = $1 }
        function rank(q,   i) { i = int(q * NR); if (i < q * NR) i++; if (i < 1) i = 1; return v[i] }
        END { if (NR == 0) { print "0 - - -"; exit }
              printf "%d %.0f %.0f %.0f\n", NR, rank(0.50) / 1000, rank(0.99) / 1000, v[NR] / 1000 }'
}

# summarize: one EDGE RESULT line and one check per (program, generation).
summarize() {
    local gen program name file traced polled inverted expected tn tp50 tp99 tmax pn pp50 pp99 pmax
    expected=$((ROUNDS * CYCLES * 2))
    for gen in $GENERATIONS; do
        for program in $PROGRAMS; do
            name=$program/$gen
            failed "$name" && continue
            file=$WORK/$program-$gen.samples
            traced=$(stats "$file" 3)
            polled=$(stats "$file" 2)
            # The write cannot come after the probe saw its level: a sample that says so would be
            # a trace record matched to the wrong edge. Counted, not hidden.
            inverted=$(awk '$3 != "-" && $3 > $2 { k++ } END { print k + 0 }' "$file")
            read -r tn tp50 tp99 tmax <<EOF
$traced
EOF
            read -r pn pp50 pp99 pmax <<EOF
$polled
EOF
            echo "EDGE RESULT program=$program libgpiod=$(library_version "$gen") edges=$pn traced_edges=$tn" \
                "traced_p50_us=$tp50 traced_p99_us=$tp99 traced_max_us=$tmax" \
                "polled_p50_us=$pp50 polled_p99_us=$pp99 polled_max_us=$pmax traced_after_polled=$inverted"
            check "edge-latency/$name" '[ "$pn" = "$expected" ] && { [ "$tn" = "$expected" ] || [ "$tn" = 0 ]; }' \
                "$pn edges polled, $tn traced, of $expected"
        done
    done
}

sed -e 's/^debounce = .*/debounce = "0ms"/' -e 's/^relock_timeout = .*/relock_timeout = "30s"/' \
    /hil/boards/hil-gpio-sim.toml >"$WORK/board.toml"
BOARD=$WORK/board.toml

case ${0##*/} in
    *-round-*.sh)
        round=${0##*-round-}
        round=${round%.sh}
        round=${round#0}
        if [ "$round" = 1 ]; then
            rm -f "$WORK"/*.samples "$WORK/failed"
            read -r up _ </proc/uptime
            info "edge-latency: kernel $(uname -r) $(uname -m), $(grep -c ^processor /proc/cpuinfo) CPU" \
                "($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n1))," \
                "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource), uptime ${up}s"
            info "edge-latency: $ROUNDS rounds x $CYCLES cycles (+$WARMUP warm-up) per program and generation," \
                "${GAP_US} us after each edge; programs: $PROGRAMS; generations: $GENERATIONS"
        fi
        [ -d "$TRACEFS/events" ] || mount -t tracefs nodev "$TRACEFS" 2>/dev/null ||
            info "edge-latency: no tracefs: only the polled times"
        measure_round "$round"
        ;;
    *-summary.sh)
        summarize
        ;;
    *)
        fail edge-latency "run as NAME-round-NN.sh or NAME-summary.sh, not ${0##*/}"
        ;;
esac
