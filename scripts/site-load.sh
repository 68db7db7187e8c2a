#!/usr/bin/env bash
# The outbox under load: turnstiled (the release build) on a simulated board with fast lines,
# 1,000 counted events a second (a coin every 2 ms and a passage 1 ms after it) for S seconds,
# run twice on the same machine: with a store alone, then with a store and --mqtt to a
# throwaway mosquitto on loopback (scripts/mqtt-broker.sh) while a subscriber takes every event.
# It checks that every event reached the subscriber (each sequence once, in order) and that the
# outbox was empty at the stop, and prints the edge-to-lock latency of both runs, so the cost of
# publishing on the event loop shows (it should be none: the loop never calls the publisher).
#
# usage: scripts/site-load.sh [--seconds S] [--bin-dir DIR]     (default 20 s, the release build)
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=20 bin_dir=""
while [ $# -gt 0 ]; do
    case $1 in
        --seconds) seconds=$2; shift 2 ;;
        --bin-dir) bin_dir=$2; shift 2 ;;
        *) echo "usage: $0 [--seconds S] [--bin-dir DIR]" >&2; exit 64 ;;
    esac
done
[ -n "$bin_dir" ] || bin_dir=$(scripts/release-build.sh --show-bin-path)
turnstiled=$bin_dir/turnstiled
[ -x "$turnstiled" ] || { echo "error: $turnstiled is not built (scripts/release-build.sh turnstiled)" >&2; exit 1; }
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

# boards/sim.toml with lines fast enough for 500 pulses a second each (600 µs pulses, 300 µs
# debounce, no bounce).
sed -e 's/debounce = "10ms"/debounce = "300us"/' -e 's/coin_pulse = "50ms"/coin_pulse = "600us"/' \
    -e 's/push_pulse = "150ms"/push_pulse = "600us"/' -e 's/bounce_edges = 4/bounce_edges = 0/' \
    -e 's/^name = "sim"/name = "load"/' boards/sim.toml >"$work/board.toml"
python3 - "$work/script.txt" "$seconds" "$RATE" <<'PY'
import sys
path, seconds, rate = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
pairs, period = int(seconds * rate / 2), 2.0 / rate
lines = []
for i in range(pairs):
    t = 0.5 + i * period
    lines += [f"{t:.6f} coin", f"{t + period / 2:.6f} push"]
lines.append(f"{0.5 + pairs * period + 1.0:.6f} end")
open(path, "w").write("\n".join(lines) + "\n")
PY
expected=$(( $(grep -c . "$work/script.txt") - 1 ))

run() {
    local name=$1; shift
    "$turnstiled" run --board "$work/board.toml" --script "$work/script.txt" --stop-at-end --no-http \
        --database "$work/$name.sqlite" "$@" >"$work/$name.out" 2>"$work/$name.err"
    grep -o "edge-to-lock latency.*" "$work/$name.err" | sed "s/^/  $name: /"
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
python3 - "$work/received.txt" "$expected" <<'PY'
import json, sys
path, expected = sys.argv[1], int(sys.argv[2])
sequences = [json.loads(line)["sequence"] for line in open(path) if line.strip()]
first, seen = [], set()
for s in sequences:
    if s not in seen:
        seen.add(s)
        first.append(s)
ok = first == list(range(1, expected + 1))
print(f"  received {len(sequences)} messages, {len(first)} events, in order from 1: {ok}")
sys.exit(0 if ok else 1)
PY
