#!/usr/bin/env bash
# Edge to output through the kernel (issue 41, the Pi's budgets): how long after a GPIO edge the
# output line changes, for turnstiled and for the shortest C program doing the same through
# libgpiod (Benchmarks/edge-latency/edge-follower.c: the physical limit on that machine), on
# libgpiod 1.6.3 and 2.3, in one boot of the HIL VM (scripts/hil/: Debian's kernel under qemu,
# gpio-sim). A benchmark, not a test: it prints a table and fails only when the run itself fails
# (a program that does not start, an edge not answered).
#
# Usage: Benchmarks/scripts/edge-latency.sh [--cycles N] [--rounds N] [--warmup N] [--gap-us N]
#            [--generations "v1 v2"] [--turnstiled PATH] [--prebuilt] [--timeout S]
#   --cycles N        coin/push cycles per program, generation and round (default 100); each
#                     cycle is two measured edges, so the default 5 rounds give 1,000 edges each
#   --rounds N        rounds (default 5, at most 99): every program runs once per round, in
#                     turn, so a change in the host's load falls on all of them
#   --warmup N        cycles before each run's measured ones, not counted (default 10)
#   --gap-us N        the guest's pause after each edge is answered (default 50000: a coin's
#                     pulse; the daemon's work after a step -- its reporter drains 20 ms later --
#                     is done before the next edge, as between a person's coin and push. 2000
#                     makes a burst, where that work lands on the edges)
#   --generations G   libgpiod generations, "v1 v2" (default) or one of them
#   --turnstiled PATH the daemon to measure (default: the release build, scripts/release-build.sh,
#                     built first unless --prebuilt)
#   --timeout S       wall clock for the VM (default 1800)
# Environment: GUEST_CC, the C compiler for the guest's architecture (default gcc; the programs
# are linked statically, so the guest needs no library for them); GUEST_LIBGPIOD1_A, libgpiod
# 1.6's static library for that compiler (default: the one it finds, apt's libgpiod-dev).
#
# How it measures (Benchmarks/edge-latency/guest.sh runs in the VM as a HIL scenario): a static
# probe (edge-probe.c) writes gpio-sim's `pull` for the coin or push input and takes
# CLOCK_MONOTONIC just before the write; the output's change is timed twice: "set", the kernel's
# record of the output write (ftrace's gpio:gpio_value event on trace_clock mono), and "seen",
# the probe's first read of the lock line's sysfs `value` showing it (polled at SCHED_IDLE, so
# it never takes the CPU from the program measured; it ends once that program waits again). The
# cycle coin -> lock 0, push -> lock 1 returns the turnstile to where it started. Debounce is 0
# on every input for both programs (the board's "0ms"; the follower asks the kernel for 0).
#
# Outputs: the table on standard output ("set" rows first, then "seen"); the VM's console on
# standard error and in .build-hil/edge-latency/logs/edge-latency-<time>.log.
set -euo pipefail
# shellcheck source=scripts/hil/common.sh
. "$(dirname "$0")/../../scripts/hil/common.sh"
# shellcheck source=scripts/lib/packages.sh
. "$PROJECT_DIR/scripts/lib/packages.sh"

CYCLES=100
ROUNDS=5
WARMUP=10
GAP_US=50000
GENERATIONS="v1 v2"
TIMEOUT_S=1800                  # the VM: about 10 minutes with the defaults under TCG, on a busy host
PREBUILT=0
TURNSTILED=""
GUEST_CC=${GUEST_CC:-gcc}
GUEST_CFLAGS="-O2 -Wall -Wextra -static"
LIBGPIOD2_VERSION=2.3           # the sources prepare.sh leaves under .build-hil/src
LIBGPIOD2_CFLAGS="-O2 -D_GNU_SOURCE"   # as prepare.sh builds the shared library, less -fPIC
HTTP_PORT=8080                  # turnstiled's status page, on the guest's loopback
SCENARIO=95-edge-latency        # the guest script's name among the HIL scenarios
TARGET_P50=1.5                  # issue 41's budget: the daemon within 1.5x the C program's p50
TARGET_P99=2                    # and 2x its p99

usage() { hil_usage "$0" "${1:-2}"; }
while [ $# -gt 0 ]; do
    case $1 in
        --cycles) [ $# -ge 2 ] || usage; CYCLES=$2; shift 2 ;;
        --rounds) [ $# -ge 2 ] || usage; ROUNDS=$2; shift 2 ;;
        --warmup) [ $# -ge 2 ] || usage; WARMUP=$2; shift 2 ;;
        --gap-us) [ $# -ge 2 ] || usage; GAP_US=$2; shift 2 ;;
        --generations) [ $# -ge 2 ] || usage; GENERATIONS=$2; shift 2 ;;
        --turnstiled) [ $# -ge 2 ] || usage; TURNSTILED=$2; shift 2 ;;
        --timeout) [ $# -ge 2 ] || usage; TIMEOUT_S=$2; shift 2 ;;
        --prebuilt) PREBUILT=1; shift ;;
        -h|--help) usage 0 ;;
        *) usage ;;
    esac
done
for n in "$CYCLES" "$ROUNDS" "$WARMUP" "$GAP_US" "$TIMEOUT_S"; do
    [[ $n =~ ^[0-9]+$ ]] || hil_die "'$n' is not a number"
done
[ "$ROUNDS" -ge 1 ] && [ "$ROUNDS" -le 99 ] && [ "$CYCLES" -ge 1 ] || hil_die "--rounds 1 to 99, --cycles at least 1"
for gen in $GENERATIONS; do
    case $gen in v1|v2) ;; *) hil_die "--generations: '$gen' is not v1 or v2" ;; esac
done

OUT=$BUILD_HIL/edge-latency
INITRAMFS=$OUT/initramfs.cpio.gz
LOG=$OUT/logs/edge-latency-$(date +%Y%m%d-%H%M%S).log
SRC_DIR=$PROJECT_DIR/Benchmarks/edge-latency
mkdir -p "$OUT/bin" "$OUT/logs"

host_conditions() {
    printf '%s: %s, %s CPUs (%s), load average %s\n' "$1" "$(uname -r)" "$(nproc)" \
        "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n1)" "$(cut -d' ' -f1-3 /proc/loadavg)"
}

step_prepare() {
    packages_ensure edge_latency
    "$HIL_DIR/prepare.sh"
}

# The daemon as users ship it, stripped as run.sh stages it (and the .deb ships it).
step_daemon() {
    if [ -z "$TURNSTILED" ]; then
        [ "$PREBUILT" = 1 ] || "$PROJECT_DIR/scripts/release-build.sh" turnstiled
        TURNSTILED=$("$PROJECT_DIR/scripts/release-build.sh" --show-bin-path)/turnstiled
    fi
    [ -x "$TURNSTILED" ] || hil_die "$TURNSTILED is not built (scripts/release-build.sh turnstiled)"
    strip -o "$OUT/bin/turnstiled" "$TURNSTILED"
    hil_log "turnstiled: sha256 $(sha256sum "$OUT/bin/turnstiled" | cut -d' ' -f1)"
}

# The probe and the follower, static, for the guest's architecture. The follower on libgpiod 2.3
# is compiled with that library's sources (the PyPI sdist prepare.sh unpacked, as prepare.sh
# compiles them); on 1.6 it is linked with apt's libgpiod.a (libgpiod-dev), the same build as
# the libgpiod.so.2 the daemon opens.
step_programs() {
    local src obj f v1_archive
    # shellcheck disable=SC2086
    "$GUEST_CC" $GUEST_CFLAGS -o "$OUT/bin/probe" "$SRC_DIR/edge-probe.c"
    if [[ " $GENERATIONS " == *" v2 "* ]]; then
        src=$(find "$BUILD_HIL/src" -maxdepth 1 -name 'gpiod-*' -type d | head -n1)
        [ -n "$src" ] && [ "$(cat "$src/libgpiod-version.txt" 2>/dev/null)" = "$LIBGPIOD2_VERSION" ] \
            || hil_die "no libgpiod $LIBGPIOD2_VERSION sources under $BUILD_HIL/src (scripts/hil/prepare.sh)"
        obj=$OUT/libgpiod-$LIBGPIOD2_VERSION
        rm -rf "$obj"; mkdir -p "$obj"
        for f in "$src"/lib/*.c; do
            # shellcheck disable=SC2086
            "$GUEST_CC" $LIBGPIOD2_CFLAGS -DGPIOD_API_VERSION_STR="\"$LIBGPIOD2_VERSION\"" \
                -I"$src/include" -I"$src/lib" -c "$f" -o "$obj/$(basename "${f%.c}").o"
        done
        # The header from prepare.sh's build of the library, as the daemon's library was built.
        # shellcheck disable=SC2086
        "$GUEST_CC" $GUEST_CFLAGS -I"$LIBGPIOD2_PREFIX/include" -o "$OUT/bin/follower-v2" \
            "$SRC_DIR/edge-follower.c" "$obj"/*.o
    fi
    if [[ " $GENERATIONS " == *" v1 "* ]]; then
        v1_archive=${GUEST_LIBGPIOD1_A:-$("$GUEST_CC" -print-file-name=libgpiod.a)}
        [ -f "$v1_archive" ] || hil_die "no libgpiod 1.6 static library for $GUEST_CC (apt's libgpiod-dev; GUEST_LIBGPIOD1_A)"
        # shellcheck disable=SC2086
        "$GUEST_CC" $GUEST_CFLAGS -o "$OUT/bin/follower-v1" "$SRC_DIR/edge-follower.c" "$v1_archive"
    fi
}

step_initramfs() {
    local multiarch lib args=() gen round
    multiarch=$("$GUEST_CC" -print-multiarch)
    cat >"$OUT/edge-latency.conf" <<EOF
CYCLES=$CYCLES
WARMUP=$WARMUP
ROUNDS=$ROUNDS
GAP_US=$GAP_US
GENERATIONS="$GENERATIONS"
PROGRAMS="turnstiled edge-follower"
HTTP_PORT=$HTTP_PORT
EOF
    args+=(--bin "turnstiled=$OUT/bin/turnstiled" --bin "edge/probe=$OUT/bin/probe")
    for gen in $GENERATIONS; do args+=(--bin "edge/follower-$gen=$OUT/bin/follower-$gen"); done
    # What the daemon opens at run time, where the guest's loader looks (as run.sh does).
    for lib in libgpiod.so.2 libsqlite3.so.0; do
        args+=(--file "usr/lib/$multiarch/$lib=$(ldconfig -p | awk -v l="$lib" '$1 == l && $NF ~ /^\// { print $NF; exit }')")
    done
    args+=(--file "usr/lib/$multiarch/$LIBGPIOD2_SONAME=$LIBGPIOD2_PREFIX/lib/$LIBGPIOD2_SONAME")
    args+=(--file "hil/boards/hil-gpio-sim.toml=$PROJECT_DIR/boards/hil-gpio-sim.toml")
    # The guest script once per round and once to summarize: the suite gives each its own time.
    for ((round = 1; round <= ROUNDS; round++)); do
        args+=(--file "hil/guest/scenarios/$SCENARIO-round-$(printf '%02d' "$round").sh=$SRC_DIR/guest.sh")
    done
    args+=(--file "hil/guest/scenarios/$SCENARIO-summary.sh=$SRC_DIR/guest.sh")
    args+=(--file "hil/edge-latency.conf=$OUT/edge-latency.conf")
    "$HIL_DIR/make-initramfs.sh" "$INITRAMFS" "${args[@]}"
}

step_boot() {
    ln -sfn "$(basename "$LOG")" "$OUT/logs/latest.log"
    # The console goes to standard error: standard output is the table's.
    "$HIL_DIR/boot.sh" "$INITRAMFS" "$LOG" "$TIMEOUT_S" --append "hil.only=$SCENARIO" >&2 || verdict=$?
}

# The table, from the guest's "EDGE RESULT" lines: for each measure (set, seen), each program on
# each library, and its ratio to edge-follower's on the same library.
print_table() {
    grep -a '^EDGE RESULT ' "$LOG" | awk -v tp50="$TARGET_P50" -v tp99="$TARGET_P99" '
        {
            for (i = 3; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
            key = f["program"] SUBSEP f["libgpiod"]
            programs[++n] = key
            edges[key] = f["edges"]
            for (m = 1; m <= 2; m++) {
                p = m == 1 ? "traced" : "polled"
                v50[m, key] = f[p "_p50_us"]; v99[m, key] = f[p "_p99_us"]; vmax[m, key] = f[p "_max_us"]
                if (m == 1) edges1[key] = f["traced_edges"]
            }
            inverted[key] = f["traced_after_polled"]
        }
        function ratio(a, b) { return (b > 0 && a != "-") ? sprintf("%.2fx", a / b) : "-" }
        END {
            title[1] = "output set (kernel trace of the write)"; title[2] = "output seen (sysfs value, idle-priority poll)"
            for (m = 1; m <= 2; m++) {
                printf "\n%s, microseconds from the edge written\n", title[m]
                printf "| %-13s | %-8s | %5s | %6s | %6s | %6s | %-14s | %-14s |\n", "program", "libgpiod", "edges", "p50", "p99", "max", "p50 ratio to C", "p99 ratio to C"
                printf "|---------------|----------|-------|--------|--------|--------|----------------|----------------|\n"
                for (i = 1; i <= n; i++) {
                    key = programs[i]; split(key, pl, SUBSEP)
                    c = "edge-follower" SUBSEP pl[2]
                    e = m == 1 ? edges1[key] : edges[key]
                    printf "| %-13s | %-8s | %5s | %6s | %6s | %6s | %-14s | %-14s |\n", pl[1], pl[2], e,
                        v50[m, key], v99[m, key], vmax[m, key], ratio(v50[m, key], v50[m, c]), ratio(v99[m, key], v99[m, c])
                }
            }
            for (i = 1; i <= n; i++) if (inverted[programs[i]] > 0) {
                split(programs[i], pl, SUBSEP)
                printf "\nwarning: %s on %s: %s edges whose traced write came after the poll saw it (a trace record matched to the wrong edge)\n", pl[1], pl[2], inverted[programs[i]]
            }
            printf "\nTarget (issue 41): turnstiled within %sx edge-follower'"'"'s p50 and %sx its p99, output set:\n", tp50, tp99
            for (i = 1; i <= n; i++) {
                key = programs[i]; split(key, pl, SUBSEP)
                if (pl[1] != "turnstiled") continue
                c = "edge-follower" SUBSEP pl[2]
                if (!(v50[1, c] > 0) || v50[1, key] == "-") { printf "  libgpiod %s: no figures\n", pl[2]; continue }
                r50 = v50[1, key] / v50[1, c]; r99 = v99[1, key] / v99[1, c]
                printf "  libgpiod %s: p50 %.2fx (%s), p99 %.2fx (%s)\n", pl[2], r50, r50 <= tp50 ? "met" : "missed",
                    r99, r99 <= tp99 ? "met" : "missed"
            }
        }'
}

verdict=0
trap 'hil_timings edge-latency' EXIT
host_conditions "host before" >&2
hil_step prepare step_prepare
hil_step "turnstiled" step_daemon
hil_step "C programs ($GUEST_CC)" step_programs
hil_step initramfs step_initramfs
hil_step "boot + benchmark" step_boot
host_conditions "host after" >&2
grep -a 'HIL INFO edge-latency:' "$LOG" | sed 's/^HIL INFO //' >&2 || true
print_table
exit "$verdict"
