#!/usr/bin/env bash
# The Raspberry Pi's budgets for a daemon, measured on the machine's own architecture and on
# aarch64 (under qemu-user) in one run each; a benchmark, not a test: it prints figures (the
# table in docs/performance.md, "The Pi's budgets", comes from it) and fails only when a run
# itself fails.
#
#   Benchmarks/scripts/pi-budgets.sh [--product P] [--events N] [--idle-seconds S] [--arch A]...
#     --product P        turnstiled (default) or another daemon with a "load" entry in its
#                        packaging/checks.json
#     --events N         counted events before the memory is read (default 100000)
#     --idle-seconds S   how long the idle daemon's wake-ups are counted (default 60)
#     --arch A           x86_64 and/or aarch64 (default both; aarch64 needs the arm64 SDK and
#                        the aarch64 release build: scripts/release-build.sh --arch arm64 P)
#
# For each architecture, the release build users ship (scripts/release-build.sh):
#   size       the binary stripped, as the .deb ships it;
#   memory     `run` with every service (the count store, HTTP, the control socket, MQTT to a
#              throwaway mosquitto) on the simulated board, its lines made fast, fed N counted
#              events at 1,000 a second (`controller-checks load-plan`, as scripts/site-load.sh):
#              resident memory (VmRSS) after the last event and its peak (VmHWM);
#   idle       the same daemon left idle for S seconds: its threads' voluntary context switches
#              (each one a sleep that ended) a second, and how many threads it has.
# Under qemu-user, resident memory includes qemu's own (its code cache, about 30-60 MB), so the
# aarch64 figure is an upper bound of the Pi's; the thread and wake-up counts are the program's
# (qemu-user runs each of its threads on a thread of its own).
set -euo pipefail
cd "$(dirname "$0")/../.."

product=turnstiled events=100000 idle_seconds=60 arches=()
while [ $# -gt 0 ]; do
    case $1 in
        --product) product=$2; shift 2 ;;
        --events) events=$2; shift 2 ;;
        --idle-seconds) idle_seconds=$2; shift 2 ;;
        --arch) arches+=("$2"); shift 2 ;;
        *) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 64 ;;
    esac
done
[ ${#arches[@]} -gt 0 ] || arches=(x86_64 aarch64)
readonly RATE=1000                    # counted events a second, as scripts/site-load.sh
readonly SAMPLE_SECONDS=0.5           # how often memory is read while the events run

work=$(mktemp -d --tmpdir pi-budgets-XXXXXX)
pid="" broker_dir=""
cleanup() {
    [ -z "$pid" ] || kill "$pid" 2>/dev/null || true
    [ -z "$broker_dir" ] || scripts/mqtt-broker.sh stop "$broker_dir" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
eval "$(scripts/mqtt-broker.sh start "$work/broker")"
broker_dir=$MQTT_BROKER_DIR

# kib FIELD PID: a /proc/PID/status field in kB.
kib() { awk -v f="$1:" '$1 == f { print $2 }' "/proc/$2/status" 2>/dev/null; }
# switches PID: voluntary context switches of all its threads.
switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '$1 == "voluntary_ctxt_switches:" { s += $2 } END { print s + 0 }'; }

printf '%-8s  %12s  %14s  %14s  %8s  %16s\n' arch "size (MB)" "RSS after (MB)" "peak RSS (MB)" threads "idle wake-ups/s"
for arch in "${arches[@]}"; do
    case $arch in
        x86_64) bin=$(scripts/release-build.sh --show-bin-path) ;;
        aarch64)
            bin=$(scripts/release-build.sh --arch arm64 --show-bin-path)
            . scripts/lib/arm64.sh
            arm64_binfmt
            export QEMU_LD_PREFIX=$ARM64_SYSROOT ;;
        *) echo "error: --arch $arch: x86_64 or aarch64" >&2; exit 64 ;;
    esac
    daemon=$bin/$product
    [ -x "$daemon" ] || { echo "error: $daemon is not built" >&2; exit 1; }
    . scripts/lib/arm64.sh
    tools=""
    ! arm64_foreign "$daemon" || tools=aarch64-linux-gnu-
    "${tools}strip" -o "$work/stripped" "$daemon"
    size=$(stat -c %s "$work/stripped")
    . scripts/lib/controller-checks.sh
    find_controller_checks "$daemon"
    seconds=$(awk -v e="$events" -v r="$RATE" 'BEGIN { printf "%.3f", e / r }')
    mkdir -p "$work/$arch"
    eval "$("$controller_checks" load-plan "$product" --seconds "$seconds" --rate "$RATE" --folder "$work/$arch")"
    services=(--database "$work/$arch/counts.sqlite" --http 127.0.0.1:0 --control-socket "$work/$arch/control.sock"
        --mqtt "mqtt://127.0.0.1:$MQTT_PLAIN_PORT" --mqtt-prefix nodes --mqtt-node "budget-$arch" --mqtt-username site
        --mqtt-password-file "$broker_dir/site.password")

    # Memory: sampled while the events run; the last sample before the daemon stops is after
    # the last event (--stop-at-end stops it then).
    "$daemon" run --board "$board" --script "$script" --stop-at-end "${services[@]}" \
        >"$work/$arch/out" 2>"$work/$arch/err" &
    pid=$!
    rss=0 hwm=0
    while kill -0 "$pid" 2>/dev/null; do
        r=$(kib VmRSS "$pid") h=$(kib VmHWM "$pid")
        [ -z "$r" ] || rss=$r
        [ -z "$h" ] || hwm=$h
        sleep "$SAMPLE_SECONDS"
    done
    wait "$pid" || { echo "error: $daemon run failed:" >&2; tail -n 20 "$work/$arch/err" >&2; exit 1; }
    pid=""

    # Idle: the same services, no script; counted once it has settled.
    rm -f "$work/$arch/control.sock"
    "$daemon" run --board "$board" "${services[@]}" >"$work/$arch/idle.out" 2>"$work/$arch/idle.err" &
    pid=$!
    for _ in $(seq 1 300); do [ -S "$work/$arch/control.sock" ] && break; sleep 0.1; done
    sleep 5
    before=$(switches "$pid")
    sleep "$idle_seconds"
    after=$(switches "$pid")
    threads=$(ls "/proc/$pid/task" | wc -l)
    kill -TERM "$pid"
    wait "$pid" || true
    pid=""
    printf '%-8s  %12.2f  %14.1f  %14.1f  %8d  %16.2f\n' "$arch" "$(echo "$size / 1000000" | bc -l)" \
        "$(echo "$rss / 1024" | bc -l)" "$(echo "$hwm / 1024" | bc -l)" "$threads" \
        "$(echo "($after - $before) / $idle_seconds" | bc -l)"
done
echo "($events counted events at $RATE a second before the memory was read; idle over $idle_seconds s; $product with the store, HTTP, the control socket and MQTT)"
