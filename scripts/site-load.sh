#!/usr/bin/env bash
# The outbox under load: a daemon (the release build; turnstiled unless --product names another
# whose packaging/checks.json has a "load" entry) on its simulated board with fast lines,
# 1,000 counted events a second (turnstiled: a coin every 2 ms and a passage 1 ms after it) for S
# seconds (`controller-checks load-plan` writes the board and the scenario),
# run twice on the same machine: with a store alone, then with a store and --mqtt to a
# throwaway mosquitto on loopback (scripts/mqtt-broker.sh) while a subscriber takes every event.
# It checks that every event reached the subscriber (each sequence once, in order) and that the
# outbox was empty at the stop, and prints the edge-to-lock latency of both runs, so the cost of
# publishing on the event loop shows (it should be none: the loop never calls the publisher).
#
# usage: scripts/site-load.sh [--seconds S] [--bin-dir DIR] [--product P]
#   (default 20 s, the release build, turnstiled)
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=20 bin_dir="" product=turnstiled
while [ $# -gt 0 ]; do
    case $1 in
        --seconds) seconds=$2; shift 2 ;;
        --bin-dir) bin_dir=$2; shift 2 ;;
        --product) product=$2; shift 2 ;;
        *) echo "usage: $0 [--seconds S] [--bin-dir DIR] [--product P]" >&2; exit 64 ;;
    esac
done
[ -n "$bin_dir" ] || bin_dir=$(scripts/release-build.sh --show-bin-path)
daemon=$bin_dir/$product
[ -x "$daemon" ] || { echo "error: $daemon is not built (scripts/release-build.sh $product)" >&2; exit 1; }
. scripts/lib/controller-checks.sh
find_controller_checks "$daemon"
# Events a second the outbox must keep up with.
readonly RATE=1000

work=$(mktemp -d --tmpdir site-load-XXXXXX)
broker_dir="" subscriber=""
cleanup() {
    [ -n "$subscriber" ] && kill "$subscriber" 2>/dev/null || true
    [ -n "$broker_dir" ] && scripts/mqtt-broker.sh stop "$broker_dir" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

# The product's board with lines fast enough for the rate, and the scenario.
eval "$("$controller_checks" load-plan "$product" --seconds "$seconds" --rate "$RATE" --folder "$work")"
expected=$events

run() {
    local name=$1; shift
    "$daemon" run --board "$board" --script "$script" --stop-at-end --no-http \
        --database "$work/$name.sqlite" "$@" >"$work/$name.out" 2>"$work/$name.err"
    grep -o "edge-to-[a-z]* latency.*" "$work/$name.err" | sed "s/^/  $name: /"
}

echo "site-load: $expected counted events at $RATE a second, without and with --mqtt"
run store-only

eval "$(scripts/mqtt-broker.sh start "$work/broker")"
broker_dir=$MQTT_BROKER_DIR
mosquitto_sub -h 127.0.0.1 -p "$MQTT_PLAIN_PORT" -u reader -P "$(head -n 1 "$broker_dir/reader.password")" \
    -q 1 -t nodes/load/events >"$work/received.txt" &
subscriber=$!
sleep 0.5
run with-mqtt --mqtt "mqtt://127.0.0.1:$MQTT_PLAIN_PORT" --mqtt-prefix nodes --mqtt-node load \
    --mqtt-username site --mqtt-password-file "$broker_dir/site.password"
# The daemon stopped after the broker acknowledged its last event; the subscriber may still be
# reading.
for _ in $(seq 1 100); do
    [ "$(grep -c . "$work/received.txt" || true)" -ge "$expected" ] && break
    sleep 0.1
done
kill "$subscriber" 2>/dev/null || true
subscriber=""
if grep -q "stay in the outbox" "$work/with-mqtt.err"; then
    echo "error: the outbox was not empty at the stop:" >&2
    grep "outbox" "$work/with-mqtt.err" >&2
    exit 1
fi
"$controller_checks" outbox-order "$work/received.txt" --expected "$expected"
