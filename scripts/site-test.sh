#!/usr/bin/env bash
# A site on one broker: N simulated controllers (the release binaries of every product whose
# packaging/checks.json has a "site" entry, in turn: turnstiles and parking barriers alternately)
# on a throwaway mosquitto on loopback (scripts/mqtt-broker.sh), each with random traffic of its
# product's for S seconds (`controller-checks site-plan` writes each node's scenario); then
#   - one site-wide `emergency on` (PREFIX/all/command): every controller must take it within
#     1 s of its publication, measured from just before mosquitto_pub starts to each daemon's
#     emergency step (its outputs are written in that step: the turnstile's lock released, the
#     barrier's arm lifting), by the daemon's own trace (`t` since its `originUnixNanoseconds`);
#   - the site page (`turnstiled fleet --http`) in headless Chromium, while they run: after its
#     script ran, a row per controller, every one online and in its emergency state, nothing in
#     an outbox, and each application's sums (a screenshot of it to SITE_PAGE_SCREENSHOT when
#     set: docs/site-page.png is one);
#   - every daemon stopped (SIGTERM), then `turnstiled fleet --json`: its sums per application
#     must equal the sums of every daemon's `stats --json` totals, and every node must be listed,
#     offline.
#
# usage: scripts/site-test.sh [--nodes N] [--seconds S] [--bin-dir DIR]
#   defaults: 50 nodes, 60 s of traffic, the release builds (scripts/release-build.sh
#   --show-bin-path; build each product and controller-checks first).
# Needs mosquitto, mosquitto_pub, openssl, chromium and libmosquitto1.
set -euo pipefail
cd "$(dirname "$0")/.."

nodes=50 seconds=60 bin_dir=""
while [ $# -gt 0 ]; do
    case $1 in
        --nodes) nodes=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --bin-dir) bin_dir=$2; shift 2 ;;
        *) echo "usage: $0 [--nodes N] [--seconds S] [--bin-dir DIR]" >&2; exit 64 ;;
    esac
done
[ -n "$bin_dir" ] || bin_dir=$(scripts/release-build.sh --show-bin-path)
. scripts/lib/controller-checks.sh
find_controller_checks "$bin_dir/turnstiled"
# How long the emergency may take to reach the slowest controller.
readonly EMERGENCY_LIMIT_MS=1000

work=$(mktemp -d --tmpdir site-test-XXXXXX)
broker_dir=""
pids=()
fleet_pid=""
cleanup() {
    for pid in "${pids[@]}" $fleet_pid; do kill -KILL "$pid" 2>/dev/null || true; done
    [ -n "$broker_dir" ] && scripts/mqtt-broker.sh stop "$broker_dir" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

eval "$(scripts/mqtt-broker.sh start "$work/broker")"
broker_dir=$MQTT_BROKER_DIR
url="mqtt://127.0.0.1:$MQTT_PLAIN_PORT"
echo "site-test: $nodes controllers on $url, $seconds s of traffic"

# Each node's product and its traffic, at random (seeded by the node's number).
"$controller_checks" site-plan --nodes "$nodes" --seconds "$seconds" --folder "$work" >"$work/plan.tsv"
while IFS=$'\t' read -r i product board _ _; do
    [ -x "$bin_dir/$product" ] || { echo "error: $bin_dir/$product is not built (scripts/release-build.sh ...)" >&2; exit 1; }
    "$bin_dir/$product" run --board "$board" --script "$work/node$i.txt" --json --no-http \
        --database "$work/node$i.sqlite" --mqtt "$url" --mqtt-prefix nodes --mqtt-node "gate-$i" \
        --mqtt-username site --mqtt-password-file "$broker_dir/site.password" \
        </dev/null >"$work/node$i.out" 2>"$work/node$i.err" &
    pids+=($!)
    echo "$product" >"$work/node$i.tool"
done <"$work/plan.tsv"

# Every one ready and connected.
for _ in $(seq 1 300); do
    ready=0
    for i in $(seq 1 "$nodes"); do
        grep -q "MQTT: connected" "$work/node$i.err" 2>/dev/null && ready=$((ready + 1))
    done
    [ "$ready" = "$nodes" ] && break
    sleep 0.1
done
[ "$ready" = "$nodes" ] || { echo "error: only $ready of $nodes controllers connected" >&2; tail -n 3 "$work"/node*.err >&2; exit 1; }
echo "site-test: all $nodes connected; traffic for $seconds s"
sleep "$seconds"

published=$(date +%s%N)
mosquitto_pub -h 127.0.0.1 -p "$MQTT_PLAIN_PORT" -u operator -P "$(head -n 1 "$broker_dir/operator.password")" -q 1 \
    -t nodes/all/command -m '{"v":1,"id":1,"command":"emergency","on":true}'
sleep 3

# The site page while every controller runs: served by fleet, drawn by Chromium once its script
# has polled /site.json (--virtual-time-budget), its rows read back from the DOM.
reader=(--mqtt "$url" --mqtt-prefix nodes --mqtt-username reader --mqtt-password-file "$broker_dir/reader.password")
"$bin_dir/turnstiled" fleet --http 127.0.0.1:0 "${reader[@]}" >"$work/fleet-http.out" 2>"$work/fleet-http.err" &
fleet_pid=$!
page_port=""
for _ in $(seq 1 100); do
    page_port=$(sed -n 's#.*site page of .* on http://127\.0\.0\.1:\([0-9]*\)/.*#\1#p' "$work/fleet-http.err" | sed -n 1p)
    [ -n "$page_port" ] && break
    sleep 0.1
done
[ -n "$page_port" ] || { cat "$work/fleet-http.err" >&2; echo "error: fleet --http did not serve within 10 s" >&2; exit 1; }
# Each node's health is looked at once a second: two seconds, and the outboxes have said 0.
sleep 2
chromium_bin=$(command -v chromium || command -v chromium-browser)
chromium_flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/chromium-profile"
    --window-size=1400,1000 --virtual-time-budget=3000)
"$chromium_bin" "${chromium_flags[@]}" --dump-dom "http://127.0.0.1:$page_port/" >"$work/site-page.html" 2>"$work/chromium.log" \
    || { cat "$work/chromium.log" >&2; echo "error: chromium could not load the site page" >&2; exit 1; }
"$controller_checks" site-page --dom "$work/site-page.html" --plan "$work/plan.tsv"
if [ -n "${SITE_PAGE_SCREENSHOT:-}" ]; then
    "$chromium_bin" "${chromium_flags[@]}" --screenshot="$SITE_PAGE_SCREENSHOT" "http://127.0.0.1:$page_port/" >"$work/chromium.log" 2>&1 \
        || { cat "$work/chromium.log" >&2; echo "error: chromium could not take a screenshot of the site page" >&2; exit 1; }
    echo "site-test: the site page's screenshot is $SITE_PAGE_SCREENSHOT"
fi
kill -TERM "$fleet_pid"
wait "$fleet_pid" || { cat "$work/fleet-http.err" >&2; echo "error: fleet --http did not stop cleanly on SIGTERM" >&2; exit 1; }
fleet_pid=""

for pid in "${pids[@]}"; do kill -TERM "$pid"; done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=$?; done
pids=()
[ "$status" = 0 ] || { echo "error: a daemon exited $status" >&2; tail -n 5 "$work"/node*.err >&2; exit 1; }

for i in $(seq 1 "$nodes"); do
    "$bin_dir/$(cat "$work/node$i.tool")" stats --database "$work/node$i.sqlite" --json >"$work/node$i.stats"
done
"$bin_dir/turnstiled" fleet --json --mqtt "$url" --mqtt-prefix nodes --mqtt-username reader \
    --mqtt-password-file "$broker_dir/reader.password" --wait 2 >"$work/fleet.json"
"$bin_dir/turnstiled" fleet --mqtt "$url" --mqtt-prefix nodes --mqtt-username reader \
    --mqtt-password-file "$broker_dir/reader.password" --wait 2 >"$work/fleet.txt"
head -n 7 "$work/fleet.txt"
echo "..."
tail -n 4 "$work/fleet.txt"

"$controller_checks" site-results --folder "$work" --nodes "$nodes" --published "$published" \
    --limit-milliseconds "$EMERGENCY_LIMIT_MS"
