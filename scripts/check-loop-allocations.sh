#!/usr/bin/env bash
# A controller daemon's event loop allocates nothing once it runs, checked on the binary users
# ship (release, --static-swift-stdlib): `DAEMON run` on its simulated board with every part of
# the daemon switched on — the count store, HTTP, the control socket, the MQTT publisher on a
# throwaway broker — and every way in for
# work: a script of its inputs (its package's packaging/loop-check.txt: turnstiled's coins,
# pushes, a coin left to relock, a fault, a repair and a fire alarm; barrierd's requests and
# vehicles over the loop, an opening left to expire and reversed by the beam, a fault and its
# repair, a fire alarm); `ctl` status and events, MQTT commands and a SIGHUP reload while the
# script runs; `ctl` pulses once its last step has passed; SIGTERM once they are counted. The allocation counter
# (AllocationTests/Sources/CMallocCounter, built here as a preload) counts the loop thread's mallocs from its
# first turn to its last, which `run --json` reports in its `stopped` line. The run's summary
# must show the script's inputs counted, so the run exercised what it should.
#
# The pulses come after the script, not during it: a pulse lands when `ctl` gets to it, and a
# request that came before the script's vehicle on one run and after it on another (qemu-user
# starts the aarch64 `ctl` a second late) changed what the run counted. After the last step the
# controller is back at rest, where each pulse adds only to its own counter.
#
# Allocations the loop makes only the first time (a dictionary growing, a generic type's
# metadata made on first use) are caught here as well as ones per event: any count but 0 fails.
# The hardware-in-the-loop load scenario checks the same on the kernel's GPIO (libgpiod backend).
#
# usage: scripts/check-loop-allocations.sh [PRODUCT]     turnstiled (the default) or barrierd
#   DAEMON= the binary (TURNSTILED= is the same); default: the static release build of PRODUCT
#   that scripts/release-build.sh (and so scripts/package-deb.sh) makes in its package's .build
set -euo pipefail
cd "$(dirname "$0")/.."

CTL_PULSES=5              # pulses through the control socket after the script's last step
PULSES_COUNTED_TRIES=150  # looks at `ctl status`, 0.2 s apart, for the pulses to be counted

daemon=${DAEMON:-${TURNSTILED:-}}
if [ -n "$daemon" ]; then
    [ -x "$daemon" ] || { echo "error: $daemon is not built" >&2; exit 1; }
    product=$("$daemon" --help | sed -n 's/^USAGE: \([a-z][a-z0-9-]*\) .*/\1/p' | sed -n 1p)
    [ -z "${1:-}" ] || [ "$1" = "$product" ] || { echo "error: $daemon is $product, not $1" >&2; exit 1; }
else
    product=${1:-turnstiled}
    package=$(scripts/product-package.sh "$product") || exit 1
    daemon=$(scripts/release-build.sh --show-bin-path)/$product
    [ -x "$daemon" ] || { echo "error: $daemon is not built (scripts/release-build.sh --package-path $package $product)" >&2; exit 1; }
fi
work=$(mktemp -d)
pid=""
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

# What drives it comes from the product's package (packaging/checks.json, "loop", read by
# `controller-checks loop-settings`): its scenario, when the scenario's last step comes, the input
# `ctl` pulses and the counter they add to, the counts the summary must show, and changes to its
# boards/sim.toml. A new controller's package gets this check by saying there what drives it.
. scripts/lib/controller-checks.sh
find_controller_checks "$daemon"
settings=$("$controller_checks" loop-settings "$product" --pulses "$CTL_PULSES" --edited-board "$work/board.toml") || exit 1
eval "$settings"
[ -f "$script_source" ] || { echo "error: $script_source (the \"loop\" script of $product's packaging/checks.json) is missing" >&2; exit 1; }
cp "$script_source" "$work/script.txt"

# The counter is preloaded into the daemon, so it is built for the daemon's architecture: an
# aarch64 build (scripts/release-build.sh --arch arm64, run under qemu-user) gets one made by the
# toolchain's clang against the arm64 SDK's trixie root.
. scripts/lib/arm64.sh
cc=(cc)
if arm64_foreign "$daemon"; then
    cc=(clang --target=aarch64-linux-gnu --sysroot="$ARM64_SYSROOT" -fuse-ld=lld)
fi
"${cc[@]}" -shared -fPIC -O2 -o "$work/libmalloccount.so" -I AllocationTests/Sources/CMallocCounter/include AllocationTests/Sources/CMallocCounter/MallocCounter.c

# The site's broker too (a throwaway mosquitto): the publisher's thread runs beside the loop, and
# commands come over MQTT. Required where CONTROLLER_MQTT_REQUIRE_BROKER=1 (CI); skipped, and
# said, where mosquitto is not installed.
mqtt=() broker_dir="" with_mqtt=""
if [ -x /usr/sbin/mosquitto ] && command -v mosquitto_pub >/dev/null; then
    eval "$(scripts/mqtt-broker.sh start "$work/broker")"
    broker_dir=$MQTT_BROKER_DIR
    trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null || true; scripts/mqtt-broker.sh stop "$broker_dir" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
    mqtt=(--mqtt "mqtt://127.0.0.1:$MQTT_PLAIN_PORT" --mqtt-prefix nodes --mqtt-node "$product" --mqtt-username site
        --mqtt-password-file "$broker_dir/site.password")
    with_mqtt=", MQTT"
elif [ "${CONTROLLER_MQTT_REQUIRE_BROKER:-0}" = 1 ]; then
    echo "error: mosquitto is not installed (apt-get install -y mosquitto mosquitto-clients libmosquitto1)" >&2
    exit 1
else
    echo "(mosquitto is not installed: checked without --mqtt)"
fi

LD_PRELOAD=$work/libmalloccount.so "$daemon" run --board "$board" --json --script "$work/script.txt" \
    --database "$work/counts.sqlite" --http 127.0.0.1:0 --control-socket "$work/control.sock" "${mqtt[@]}" \
    >"$work/out" 2>"$work/err" &
pid=$!
for _ in $(seq 1 150); do
    [ -S "$work/control.sock" ] && break
    kill -0 "$pid" 2>/dev/null || { cat "$work/err" >&2; echo "error: $product exited" >&2; exit 1; }
    sleep 0.1
done
started=$(date +%s%N)
ctl() { "$daemon" ctl --socket "$work/control.sock" "$@" >/dev/null; }
ctl status
ctl events
if [ -n "$broker_dir" ]; then
    for request in '{"v":1,"id":1,"command":"status"}' 'not a request'; do
        mosquitto_pub -h 127.0.0.1 -p "$MQTT_PLAIN_PORT" -u operator -P "$(head -n 1 "$broker_dir/operator.password")" -q 1 \
            -t "nodes/$product/command" -m "$request"
    done
fi
kill -HUP "$pid"
# Past the script's last step (the daemon's time 0 was a little before $started).
remaining=$(awk -v d="$duration" -v s="$started" -v n="$(date +%s%N)" 'BEGIN { r = d - (n - s) / 1e9; printf "%.3f", (r > 0 ? r : 0) }')
sleep "$remaining"
for _ in $(seq 1 "$CTL_PULSES"); do ctl pulse "$ctl_pulse"; done
# Every pulse counted before the stop: `ctl status`'s counters line shows the counter the pulses
# add to at the total the run must reach.
expected_pulse_total=$(for expected in $expected_counts; do [ "${expected%=*}" != "$ctl_pulse_counter" ] || echo "${expected#*=}"; done)
counted=""
for _ in $(seq 1 "$PULSES_COUNTED_TRIES"); do
    counted=$("$daemon" ctl --socket "$work/control.sock" status | sed -n "s/^counters.*[ ,]$ctl_pulse_counter \([0-9]*\).*/\1/p")
    [ "$counted" != "$expected_pulse_total" ] || break
    sleep 0.2
done
kill -TERM "$pid"
wait "$pid" || { cat "$work/err" >&2; echo "error: $product did not exit 0 after SIGTERM" >&2; exit 1; }
pid=""

stopped=$(grep '"type":"stopped"' "$work/out" || true)
allocations=$(sed -n 's/.*"loopAllocations":\([0-9]*\).*/\1/p' <<<"$stopped")
events=$(sed -n 's/.*"events":\([0-9]*\).*/\1/p' <<<"$stopped")
if [ -z "$allocations" ]; then
    echo "error: $product did not report loopAllocations (was the counter preloaded?): ${stopped:-no stopped line}" >&2
    exit 1
fi
summary=$(grep '"type":"summary"' "$work/out" || true)
for expected in $expected_counts; do
    counter=${expected%=*}
    count=$(sed -n "s/.*\"$counter\":\([0-9]*\).*/\1/p" <<<"$summary")
    if [ "$count" != "${expected#*=}" ]; then
        echo "error: ${count:-no} $counter counted, ${expected#*=} given: the run did not exercise what it should" >&2
        echo "(its summary: ${summary:-none})" >&2
        exit 1
    fi
done
if [ "$allocations" != 0 ]; then
    echo "error: the event loop allocated $allocations times over $events events; find where with a" >&2
    echo "preload that raises SIGTRAP in note_allocation() and gdb's bt (see the note on issue 8)" >&2
    exit 1
fi
if [ -n "$broker_dir" ] && ! grep -q "MQTT: connected" "$work/err"; then
    echo "error: $product never connected to the broker: $(tail -n 5 "$work/err")" >&2
    exit 1
fi
echo "$product's event loop: 0 allocations over $events events (store, HTTP, control socket$with_mqtt, SIGHUP, SIGTERM)"
