#!/usr/bin/env bash
# Idle wake-ups of `DAEMON run`, thread by thread (docs/performance.md, "Idle wake-ups"): starts
# a throwaway broker (scripts/mqtt-broker.sh) and the daemon on its simulated board with
# everything on — the count store (--database), the control socket, HTTP on a free loopback
# port and MQTT to that broker — waits until it is ready and its start-up work has settled,
# then counts the context switches of each of its threads over WINDOW seconds
# (/proc/PID/task/*/status). Voluntary ones are the thread's own sleeps ending: its wake-ups.
# Nonvoluntary ones are preemptions while it ran, which other load on the machine causes.
#
# usage: scripts/idle-wakeups.sh [WINDOW]      (default 60 s)
#   DAEMON= the daemon (default .build/debug/turnstiled, built when missing)
#   BOARD= its board (default: boards/sim.toml of the package that declares it)
#   SETTLE= seconds to wait after `ready` before counting (default 10: past the MQTT claim's
#   settling and patience, 3 s and 5 s)
#   MAX_PER_SECOND= a bound: exits 1 when the daemon's voluntary switches in the window, the
#   watchdog's pings included, average more than this many a second (scripts/test.sh checks the
#   shipped daemons with 1 under their unit's watchdog: the Pi's idle budget)
#   WATCHDOG_USEC= systemd's watchdog, as WatchdogSec= sets it (e.g. 10000000): the script
#   plays systemd's notify socket (reading what the daemon sends, as an unread socket would
#   refuse it after ten datagrams) and says how many WATCHDOG=1 came in the window
# Prints one line per thread (its id, name, voluntary and nonvoluntary switches in the window)
# and a total line; exits 0 (or 1 above MAX_PER_SECOND). Needs mosquitto and openssl (scripts/mqtt-broker.sh's header), and
# python3 for the watchdog.
set -euo pipefail
cd "$(dirname "$0")/.."

window=${1:-60}
settle=${SETTLE:-10}
daemon=${DAEMON:-.build/debug/turnstiled}
[ -x "$daemon" ] || [ -n "${DAEMON:-}" ] || swift build --product turnstiled
[ -x "$daemon" ] || { echo "error: $daemon is not built" >&2; exit 1; }
name=$("$daemon" --help | sed -n 's/^USAGE: \([a-z][a-z0-9-]*\) .*/\1/p' | sed -n 1p)
[ -n "$name" ] || { echo "error: $daemon --help has no \"USAGE: NAME ...\" line: not a controller's daemon" >&2; exit 1; }
board=${BOARD:-$(scripts/product-package.sh "$name")/boards/sim.toml}

work=$(mktemp -d)
pid=""
broker=""
systemd=""
cleanup() {
    if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
    if [ -n "$systemd" ]; then kill "$systemd" 2>/dev/null || true; wait "$systemd" 2>/dev/null || true; fi
    if [ -n "$broker" ]; then scripts/mqtt-broker.sh stop "$broker" >/dev/null 2>&1 || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

unset NOTIFY_SOCKET
if [ -n "${WATCHDOG_USEC:-}" ]; then
    # systemd's end: appends a line to $work/pings for each WATCHDOG=1.
    python3 -c '
import socket, sys
listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
listener.bind(sys.argv[1])
while True:
    if b"WATCHDOG=1" in listener.recv(4096).split(b"\n"):
        with open(sys.argv[2], "a") as pings: pings.write("1\n")
' "$work/notify.sock" "$work/pings" &
    systemd=$!
    for _ in $(seq 1 50); do [ -S "$work/notify.sock" ] && break; sleep 0.1; done
    export NOTIFY_SOCKET=$work/notify.sock WATCHDOG_USEC
else
    unset WATCHDOG_USEC
fi

eval "$(scripts/mqtt-broker.sh start "$work/broker")"
broker=$MQTT_BROKER_DIR
"$daemon" run --board "$board" --json --http 127.0.0.1:0 --database "$work/counts.sqlite" \
    --control-socket "$work/control.sock" --mqtt "mqtt://127.0.0.1:$MQTT_PLAIN_PORT" --mqtt-prefix nodes \
    --mqtt-node node1 --mqtt-username node1 --mqtt-password-file "$broker/node1.password" \
    >"$work/out" 2>"$work/err" &
pid=$!
for _ in $(seq 1 300); do
    grep -q '"type":"ready"' "$work/out" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || { cat "$work/err" >&2; echo "$name exited" >&2; exit 1; }
    sleep 0.1
done
grep -q '"type":"ready"' "$work/out" || { cat "$work/err" >&2; echo "$name was not ready within 30 s" >&2; exit 1; }
sleep "$settle"

# TID NAME VOLUNTARY NONVOLUNTARY, one line per thread.
snapshot() {
    local task
    for task in /proc/"$pid"/task/*; do
        awk -v tid="${task##*/}" -v comm="$(tr ' ' '_' <"$task/comm" 2>/dev/null)" '
            /^voluntary_ctxt_switches/ { v = $2 } /^nonvoluntary_ctxt_switches/ { n = $2 }
            END { if (v != "") print tid, comm, v, n }' "$task/status" 2>/dev/null || true
    done | sort -n
}
count_pings() { if [ -f "$work/pings" ]; then wc -l <"$work/pings"; else echo 0; fi; }
pings_before=$(count_pings)
snapshot >"$work/before"
sleep "$window"
snapshot >"$work/after"
pings=$(( $(count_pings) - pings_before ))

# A thread started in the window counts from 0; one that ended in it is gone from both sums.
awk -v window="$window" -v name="$name" '
    NR == FNR { v[$1] = $3; n[$1] = $4; next }
    {
        dv = $3 - v[$1]; dn = $4 - n[$1]; tv += dv; tn += dn
        printf "%-8s %-16s voluntary %5d  nonvoluntary %5d\n", $1, $2, dv, dn
    }
    END { printf "%s idle over %d s: %d voluntary (%.2f a second), %d nonvoluntary\n", name, window, tv, tv / window, tn }
' "$work/before" "$work/after"
[ -z "$systemd" ] || echo "systemd's watchdog (WATCHDOG_USEC=$WATCHDOG_USEC): $pings WATCHDOG=1 in the window"
if [ -n "${MAX_PER_SECOND:-}" ]; then
    total=$(awk 'NR == FNR { v[$1] = $3; next } { t += $3 - v[$1] } END { print t + 0 }' "$work/before" "$work/after")
    if awk -v own="$total" -v window="$window" -v max="$MAX_PER_SECOND" 'BEGIN { exit !(own / window > max) }'; then
        echo "error: $name woke $total times in $window s: more than $MAX_PER_SECOND a second (the threads above)" >&2
        exit 1
    fi
    echo "$name: $total wake-ups in $window s, within $MAX_PER_SECOND a second"
fi
