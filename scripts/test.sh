#!/usr/bin/env bash
# The whole test suite, as README.md gives it and .ci/run calls it (after a quick check of the
# repository itself: its scripts' pipelines; that nothing refers to a file not in it is a test,
# RepositoryReferencesTests):
#   1. the builds under AddressSanitizer (with LeakSanitizer) and ThreadSanitizer, each failing on
#      any compiler warning in this repository's sources (scripts/sanitize.sh);
#   2. every test (Swift Testing) under AddressSanitizer, then each example's (every package
#      under Examples/ with a packaging/product.conf: the parking barrier's, a package of its own
#      on the public API), built in the same folder so only its own targets are compiled for it;
#      beside them, every test
#      under ThreadSanitizer (each test run keeps less than one core busy);
#   3. the builds users ship (scripts/release-build.sh: release, static Swift runtime, every
#      package in .build, so the runtime is compiled once for turnstiled and barrierd), each at
#      most 25 MB stripped, its largest contributors printed (scripts/size-check.sh); the same
#      for the Raspberry Pi's processor (--arch arm64, in .build-arm64), with the aarch64 Swift
#      SDK made from Debian's packages in the background since the start (scripts/arm64/sdk.sh);
#   4. the allocation tests on an optimised build (AllocationTests/, a package of their own, so
#      that only what they test is compiled with -O);
#   5. on the shipped binaries, two lanes at once (the VM of step a runs on one core; the other
#      core does lane b), and a third beside them at the lowest priority (c):
#      a. hardware-in-the-loop: turnstiled, the GPIO port contract and barrierd, each run on
#         libgpiod 1.6 and on 2.3 against the kernel's gpio-sim chip in a VM (scripts/hil/run.sh);
#         then their aarch64 builds the same way on trixie's arm64 kernel under
#         qemu-system-aarch64, on trixie's libgpiod 2.2 (scripts/hil/run.sh --arch arm64; 1.6 is
#         left to amd64's run, the same code on the other generation: about 3.5 of the full
#         suite's 6.5 minutes there); then the crash test of each daemon's durable counts (scripts/crash-test.sh: kill -9 at
#         50 random moments); then a site of 50 controllers on one broker (scripts/site-test.sh:
#         a site-wide emergency within 1 s, the fleet view's sums equal to every daemon's stats)
#         and the outbox at 1,000 events a second (scripts/site-load.sh);
#      b. each daemon's status endpoints (scripts/check-status-daemon.sh: Prometheus parser, JSON,
#         its page in headless Chromium); each daemon's event loop allocates nothing
#         (scripts/check-loop-allocations.sh); each idle with every service on wakes at most once
#         a second (scripts/idle-wakeups.sh, all at once); their .debs installed, upgraded, removed and purged
#         on this machine, alone and side by side (scripts/test-deb.sh --prebuilt); the runtime
#         core compiled alone in Embedded Swift for two microcontrollers; the arm64 lane
#         (scripts/arm64/check.sh: the aarch64 builds' output byte for byte x86_64's under qemu,
#         their event loop allocation-free, the arm64 .debs installed in a trixie arm64 root);
#         libFuzzer on the board-file, scenario and control-protocol parsers (scripts/fuzz.sh);
#      c. the Swift tests on arm64: built for aarch64 in the background since the SDK was ready,
#         at the lowest priority, and run under qemu, module by module (scripts/arm64/tests.sh).
#      Lane a's and c's output is printed when all are done.
# Every run also builds the API reference with DocC and fails on any warning (scripts/check-docs.sh).
# With --quick, an engineer's loop instead: a debug build failing on any warning in what it
# compiles of this repository's sources, every test, each example package's, the API reference
# and the Embedded check of the core (under 10 minutes on a 2-core machine from a warm build).
# Installs what it needs on a fresh Debian/Ubuntu machine, all of it before anything runs in
# parallel (scripts/lib/packages.sh). SANITIZE=0 skips ThreadSanitizer; STATUS=0,
# CRASH=0, DEB=0, FUZZ=0, HIL=0 and SITE=0 skip those checks of step 5. ARM64=0 leaves out
# the aarch64 builds, the arm64 lanes and the arm64 HIL (HIL_ARM64=0 the arm64 VM alone).
# ARM64_TESTS chooses lane c's tests: all (the default: every test module of the package and
# the example packages', each of those built where the runtime's build is: ParkingBarrier's
# 38 s of build and 47 s of run under qemu), package (the package's alone), none (no lane c;
# then the core alone is checked on aarch64 in Embedded Swift, scripts/check-arm64.sh).
# How long each step took is printed at the end (and when a step fails); a step of lane a or c
# is marked so.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
case "${1:-}" in
--quick) quick=1 ;;
"") ;;
*)
    echo "usage: $0 [--quick]" >&2
    exit 2
    ;;
esac

# The MQTT client's tests must run here, not be skipped for want of a broker (the packages below
# bring it).
export CONTROLLER_MQTT_REQUIRE_BROKER=1
# Nor the site page's test in a browser (the core packages bring Chromium).
export CONTROLLER_REQUIRE_BROWSER=1

# The controllers beside the turnstile: every package under Examples/ whose packaging/product.conf
# names its daemon (the parking barrier's today), as "PACKAGE_PATH PRODUCT". Each gets what the
# turnstile gets below (its tests, release build, size, status page, loop allocations, crash
# test), so a new controller's package is checked by being there; what drives its checks is in
# its packaging/checks.json.
examples=()
for conf in Examples/*/packaging/product.conf; do
    [ -f "$conf" ] || continue
    product=$(sed -n 's/^PRODUCT=//p' "$conf")
    [ -n "$product" ] || { echo "error: $conf has no PRODUCT= line" >&2; exit 1; }
    examples+=("${conf%/packaging/product.conf} $product")
done

STEP_TIMES=()
step_started=$SECONDS
step_name=""
# step NAME: ends the step in progress (its time noted) and starts the next.
step() {
    [ -z "$step_name" ] || STEP_TIMES+=("$(printf '%5ds  %s' $((SECONDS - step_started)) "$step_name")")
    step_name=$1
    step_started=$SECONDS
    echo "==> $1"
}
lane_a=""
lane_c=""
arm64_job_files=""
tsan_tests=""
docs_job=""
arm64_sdk=""
# kill_tree PID: the process and everything it started (lane a's VM, its daemons).
kill_tree() {
    local child
    for child in $(pgrep -P "$1" 2>/dev/null); do kill_tree "$child"; done
    kill "$1" 2>/dev/null || true
}
print_step_times() {
    local status=$?
    [ -z "$lane_a" ] || kill_tree "$lane_a"
    [ -z "$tsan_tests" ] || kill_tree "$tsan_tests"
    [ -z "$docs_job" ] || kill_tree "$docs_job"
    [ -z "$arm64_sdk" ] || kill_tree "$arm64_sdk"
    [ -z "$lane_c" ] || kill_tree "$lane_c"
    rm -rf "$arm64_job_files"
    step ""
    echo "--- time per step (total $((SECONDS / 60)) min $((SECONDS % 60)) s)"
    printf '%s\n' "${STEP_TIMES[@]}"
    return $status
}
trap print_step_times EXIT

# Everything the run needs from the package manager, installed here, once, before anything runs
# in parallel: the two lanes below used to install at once (the HIL's VM preparation, the status
# check's Chromium) and the second failed on the package manager's lock, leaving the killed
# lane's packages unpacked but not configured. What each check needs, and why, is declared in
# scripts/lib/packages.sh; the scripts ask it again when they start, and find nothing missing.
# First the package manager is made whole, should an earlier run have been killed mid-install.
step "the packages every step needs: one apt-get install of the union, then pip (scripts/lib/packages.sh)"
# shellcheck source=scripts/lib/packages.sh
. scripts/lib/packages.sh
if [ "$quick" = 1 ]; then
    packages_repair
    packages_ensure core

    step "debug build, failing on any warning in what it compiles of this repository's sources"
    build_log=$(mktemp)
    swift build --build-tests 2>&1 | tee "$build_log"
    # A warning in a dependency's sources (.build/checkouts) is not ours to fix; one here is.
    if grep -E '^/[^ ]+\.swift:[0-9]+:[0-9]+: warning:' "$build_log" | grep -v '/\.build/' | sort -u | grep .; then
        rm -f "$build_log"
        echo "error: the build has warnings (above)" >&2
        exit 1
    fi
    rm -f "$build_log"
    step "every test (swift test), then each example package's (Examples/*), built in the same folder"
    swift test --skip-build
    for example in "${examples[@]}"; do
        swift test --package-path "${example% *}" --scratch-path .build --disable-build-manifest-caching
    done
    step "the API reference: DocC over every library's public symbols, failing on any warning (scripts/check-docs.sh)"
    scripts/check-docs.sh
    step "Embedded Swift check of the core"
    scripts/check-embedded.sh
    step ""
    echo "==> the quick checks passed (the whole suite: scripts/test.sh)"
    exit 0
fi

checks=(core size loop_allocations arm64)
[ "${HIL:-1}" = 0 ] || checks+=(hil)
[ "${ARM64:-1}" != 1 ] || [ "${HIL:-1}" = 0 ] || [ "${HIL_ARM64:-1}" = 0 ] || checks+=(hil_arm64)
[ "${CRASH:-1}" = 0 ] || checks+=(crash)
[ "${SITE:-1}" = 0 ] || checks+=(site)
[ "${STATUS:-1}" = 0 ] || checks+=(status)
[ "${DEB:-1}" = 0 ] || checks+=(deb)
packages_repair
packages_ensure "${checks[@]}"

# The aarch64 Swift SDK (two Debian roots, 600 MB of packages; cached between runs on one
# machine), made in the background: mostly downloading and unpacking, and the trixie root's
# maintainer scripts under qemu.
# Then, in the same job, the test suite built for aarch64 (scripts/arm64/tests.sh --build-only,
# in a folder of its own) at the lowest priority: it takes only what the sanitizer builds, their
# test runs and the release builds leave of the two cores, and is run under qemu beside the
# lanes below. ARM64_TESTS: all (the default), package, or none.
arm64_tests=${ARM64_TESTS:-all}
case $arm64_tests in package | all | none) ;; *) echo "error: ARM64_TESTS=$arm64_tests: package, all or none" >&2; exit 64 ;; esac
[ "${ARM64:-1}" = 1 ] || arm64_tests=none
arm64_job_files=$(mktemp -d)
if [ "${ARM64:-1}" = 1 ]; then
    (
        status=0
        scripts/arm64/sdk.sh >"$arm64_job_files/sdk.log" 2>&1 || status=$?
        echo "$status" >"$arm64_job_files/sdk.status"
        [ "$status" -eq 0 ] && [ "$arm64_tests" != none ] || exit 0
        status=0
        nice -n 19 scripts/arm64/tests.sh --build-only "$arm64_tests" >"$arm64_job_files/tests-build.log" 2>&1 || status=$?
        echo "$status" >"$arm64_job_files/tests-build.status"
    ) &
    arm64_sdk=$!
fi
# wait_for_arm64_job PART: until the background job has written PART.status (it is no child of a
# lane's subshell, so its status comes as a file); its log printed, its status returned.
wait_for_arm64_job() {
    local part=$1
    while [ ! -s "$arm64_job_files/$part.status" ]; do
        kill -0 "$arm64_sdk" 2>/dev/null || [ -s "$arm64_job_files/$part.status" ] \
            || { echo "error: the arm64 job ended before its $part" >&2; return 1; }
        sleep 2
    done
    cat "$arm64_job_files/$part.log"
    return "$(cat "$arm64_job_files/$part.status")"
}

step "the scripts' pipelines read to the end under pipefail (scripts/check-pipes.sh)"
scripts/check-pipes.sh

step "the build under AddressSanitizer, failing on any warning (scripts/sanitize.sh address --build-only)"
scripts/sanitize.sh address --build-only

# The API reference from that build's modules, beside the ThreadSanitizer build: it needs a core
# for a few seconds, and waits on docc and the package manager the rest of its half minute.
docs_log=$(mktemp)
scripts/check-docs.sh --scratch-path .build-address-sanitizer >"$docs_log" 2>&1 &
docs_job=$!

if [ "${SANITIZE:-1}" != 0 ]; then
    step "the build under ThreadSanitizer (scripts/sanitize.sh thread --build-only), beside it the API reference"
    scripts/sanitize.sh thread --build-only
fi
step "the API reference: DocC over every library's public symbols, failing on any warning (scripts/check-docs.sh)"
set +e
wait "$docs_job"
docs_status=$?
set -e
docs_job=""
cat "$docs_log"
rm -f "$docs_log"
[ "$docs_status" -eq 0 ] || { echo "error: the API reference has warnings (above)" >&2; exit "$docs_status"; }

if [ "${SANITIZE:-1}" != 0 ]; then
    # Each test run keeps less than one core busy (its synchronous tests wait on processes,
    # sockets and timeouts, holding the two threads Swift's pool has here), so the two run at once.
    tsan_log=$(mktemp)
    scripts/sanitize.sh thread --test-only >"$tsan_log" 2>&1 &
    tsan_tests=$!
fi

step "every test under AddressSanitizer, then each example package's (Examples/*, packages of their own on the public API:$(for e in "${examples[@]}"; do printf ' %s' "${e#* }"; done)), built where the runtime's build is$([ -z "${tsan_tests:-}" ] || echo "; beside them every test under ThreadSanitizer")"
scripts/sanitize.sh address --test-only
for example in "${examples[@]}"; do
    scripts/sanitize.sh address --package-path "${example% *}"
done
if [ -n "${tsan_tests:-}" ]; then
    set +e
    wait "$tsan_tests"
    tsan_status=$?
    set -e
    tsan_tests=""
    echo "--- every test under ThreadSanitizer:"
    cat "$tsan_log"
    rm -f "$tsan_log"
    [ "$tsan_status" -eq 0 ] || exit "$tsan_status"
fi

step "the builds users ship: release, static Swift runtime, all in .build (scripts/release-build.sh)"
scripts/release-build.sh turnstiled gpio-contract controller-checks chartd
for example in "${examples[@]}"; do
    scripts/release-build.sh --package-path "${example% *}" "${example#* }"
done
bin=$(scripts/release-build.sh --show-bin-path)
# Every controller's daemon, the turnstile's first.
daemons=(turnstiled)
for example in "${examples[@]}"; do daemons+=("${example#* }"); done
# Every chart controller (Examples/Charts/*): chartd on its binding, run as its package's
# /usr/bin/NAME runs it, by a command written here (scripts/lib/chart-command.sh).
. scripts/lib/chart-command.sh
chart_bin=$(mktemp -d)
chart_daemons=()
for conf in Examples/Charts/*/packaging/product.conf; do
    [ -f "$conf" ] || continue
    chart_daemons+=("$(chart_command "$(dirname "$(dirname "$conf")")" "$bin/chartd" "$chart_bin")")
done

# The same for the Raspberry Pi's processor (aarch64), with the Swift SDK made at the start
# (scripts/arm64/sdk.sh, beside the sanitizer builds): lane a's VM runs them on arm64's kernel,
# lane b checks them (scripts/arm64/check.sh).
if [ "${ARM64:-1}" = 1 ]; then
    step "the builds users ship, for aarch64 (the Pi): the SDK made beside the sanitizer builds, then scripts/release-build.sh --arch arm64"
    wait_for_arm64_job sdk || { echo "error: the arm64 SDK could not be made (above)" >&2; exit 1; }
    # Reaped here when nothing follows in it, so its id is never signalled once free.
    [ "$arm64_tests" != none ] || { wait "$arm64_sdk" || true; arm64_sdk=""; }
    scripts/release-build.sh --arch arm64 turnstiled gpio-contract controller-checks
    for example in "${examples[@]}"; do
        scripts/release-build.sh --arch arm64 --package-path "${example% *}" "${example#* }"
    done
fi

step "the shipped binaries' size: at most 25 MB each, stripped (scripts/size-check.sh)"
# chartd too: it carries what the daemons do not (the SCXML loader, the chart's binding, about
# half a megabyte), under the same ceiling (docs/performance.md, "Size").
for daemon in "${daemons[@]}" chartd; do scripts/size-check.sh "$bin/$daemon"; done

step "allocation tests (release), a package of their own (AllocationTests/): only what they test built with -O"
swift test -c release --disable-testable-imports --package-path AllocationTests

# Lane c, in the background beside the two below, at the lowest priority: the test suite on
# arm64 under qemu (scripts/arm64/tests.sh), once its build, started with the SDK, is done. It
# takes what lane a's VM and lane b's waits leave of the cores.
if [ "$arm64_tests" != none ]; then
    lane_c_log=$(mktemp)
    (
        wait_for_arm64_job tests-build || { echo "error: the tests' aarch64 build failed (above)" >&2; exit 1; }
        nice -n 19 scripts/arm64/tests.sh --run-only "$arm64_tests"
    ) >"$lane_c_log" 2>&1 &
    lane_c=$!
fi

# Lane a, in the background: the VM's one virtual CPU keeps one core busy, and nothing in it
# waits on lane b. Its output goes to a file, printed once both lanes are done.
lane_a_log=$(mktemp)
lane_a_times=$(mktemp)
(
    STEP_TIMES=()
    step_name=""
    trap 'step ""; printf "%s\n" "${STEP_TIMES[@]}" >"$lane_a_times"' EXIT
    if [ "${HIL:-1}" != 0 ]; then
        step "(lane a) hardware-in-the-loop: libgpiod 1.6 and 2.3 against the kernel's gpio-sim, in a VM"
        scripts/hil/run.sh --prebuilt
        if [ "${ARM64:-1}" = 1 ] && [ "${HIL_ARM64:-1}" != 0 ]; then
            step "(lane a) hardware-in-the-loop on arm64: the aarch64 builds on trixie's libgpiod 2.2 against gpio-sim, trixie's arm64 kernel under qemu-system-aarch64"
            scripts/hil/run.sh --arch arm64 --prebuilt --generations v2
        fi
    fi
    if [ "${CRASH:-1}" != 0 ]; then
        for daemon in "${daemons[@]}"; do
            step "(lane a) crash test of $daemon: kill -9 at random moments, every reported count durable (scripts/crash-test.sh)"
            DAEMON="$bin/$daemon" scripts/crash-test.sh
        done
    fi
    if [ "${SITE:-1}" != 0 ]; then
        step "(lane a) a site: 50 turnstiles and barriers on one broker, a site-wide emergency, fleet = every daemon's stats (scripts/site-test.sh)"
        scripts/site-test.sh --nodes 50 --seconds 15 --bin-dir "$bin"
        step "(lane a) the outbox at 1,000 events a second: every event delivered, the loop's latency with and without --mqtt (scripts/site-load.sh)"
        scripts/site-load.sh --seconds 5 --bin-dir "$bin"
    fi
) >"$lane_a_log" 2>&1 &
lane_a=$!
# The idle check's window, and the watchdog the packaged unit asks for (WatchdogSec=10s in
# packaging/daemon.service): the Pi's idle budget is counted with it on.
idle_window_seconds=30
idle_watchdog_usec=10000000
# Lane b, here: below the VM's priority, so that a moment of two busy cores (a compile, the
# browser) slows lane b, not the guest, whose checks keep real time.
lane_b=(nice -n 19)

if [ "${STATUS:-1}" != 0 ]; then
    for daemon in "${daemons[@]}"; do
        step "$daemon's status endpoints: Prometheus parser, JSON, its page with its own diagram in headless Chromium"
        DAEMON="$bin/$daemon" "${lane_b[@]}" scripts/check-status-daemon.sh
    done
fi

for daemon in "${daemons[@]}"; do
    step "$daemon's event loop allocates nothing (scripts/check-loop-allocations.sh $daemon)"
    "${lane_b[@]}" scripts/check-loop-allocations.sh "$daemon"
done
for daemon in "${chart_daemons[@]}"; do
    step "$daemon's event loop allocates nothing: chartd on its chart (scripts/check-loop-allocations.sh $daemon)"
    DAEMON="$chart_bin/$daemon" "${lane_b[@]}" scripts/check-loop-allocations.sh "$daemon"
done

# All at once: each has its own broker, folder and port, and a count of its own threads' sleeps
# ending, which other processes on the machine do not add to; most of each is waiting.
step "every daemon idle with every service on, under its unit's watchdog, all at once: at most 1 wake-up a second each (scripts/idle-wakeups.sh on the shipped binaries: ${daemons[*]} ${chart_daemons[*]})"
idle_jobs=()
idle_logs=$(mktemp -d)
for daemon in "${daemons[@]}" "${chart_daemons[@]}"; do
    command=$bin/$daemon
    [ -x "$command" ] || command=$chart_bin/$daemon
    DAEMON="$command" WATCHDOG_USEC=$idle_watchdog_usec MAX_PER_SECOND=1 "${lane_b[@]}" scripts/idle-wakeups.sh "$idle_window_seconds" >"$idle_logs/$daemon" 2>&1 &
    idle_jobs+=("$!:$daemon")
done
idle_failed=0
for job in "${idle_jobs[@]}"; do
    status=0
    wait "${job%%:*}" || status=$?
    echo "--- ${job#*:}:"
    cat "$idle_logs/${job#*:}"
    [ "$status" -eq 0 ] || idle_failed=1
done
rm -rf "$idle_logs"
[ "$idle_failed" = 0 ] || { echo "error: a daemon woke more than once a second idle (above)" >&2; exit 1; }

if [ "${DEB:-1}" != 0 ]; then
    step "the .debs of these builds: build, install, purge (scripts/test-deb.sh --prebuilt)"
    "${lane_b[@]}" scripts/test-deb.sh --prebuilt
fi

step "Embedded Swift check of the core"
"${lane_b[@]}" scripts/check-embedded.sh

# The core alone in Embedded Swift on aarch64 Linux: what the arm64 tests' ControllerFSMTests
# run under qemu shows of it and more, so it runs only where they do not.
if [ "$arm64_tests" = none ]; then
    step "the core on arm64: cross-compiled for aarch64 Linux, run under qemu, the same output as on x86_64 (scripts/check-arm64.sh)"
    "${lane_b[@]}" scripts/check-arm64.sh
fi

if [ "${ARM64:-1}" = 1 ]; then
    step "arm64: the aarch64 builds' size, output the same as x86_64's under qemu, run with every service allocation-free, the arm64 .debs in a trixie root (scripts/arm64/check.sh --tests none: lane c runs the tests)"
    "${lane_b[@]}" scripts/arm64/check.sh --prebuilt --x86-bin "$bin" --tests none
fi

if [ "${FUZZ:-1}" != 0 ]; then
    # 40 s a target from the seed corpus (FUZZ_SECONDS, 60 by default when run alone): a
    # run's share of the suite's 40 minutes; a longer search is `FUZZ_SECONDS=600 scripts/fuzz.sh`.
    step "fuzzing the board-file, scenario and control-protocol parsers, 40 s each"
    FUZZ_SECONDS=${FUZZ_SECONDS:-40} "${lane_b[@]}" scripts/fuzz.sh
fi

step "waiting for lane a (the VM, then the crash tests)"
set +e
wait "$lane_a"
lane_a_status=$?
set -e
lane_a=""
echo "--- lane a's output:"
cat "$lane_a_log"
while IFS= read -r line; do [ -z "$line" ] || STEP_TIMES+=("$line"); done <"$lane_a_times"
rm -f "$lane_a_log" "$lane_a_times"
if [ "$lane_a_status" -ne 0 ]; then
    echo "error: lane a failed (its output above)" >&2
    exit "$lane_a_status"
fi
if [ -n "$lane_c" ]; then
    step "waiting for lane c (the tests on arm64 under qemu, ARM64_TESTS=$arm64_tests)"
    set +e
    wait "$lane_c"
    lane_c_status=$?
    # The arm64 job wrote its build's status before lane c began: it has ended, and is reaped.
    wait "$arm64_sdk"
    set -e
    lane_c=""
    arm64_sdk=""
    echo "--- lane c's output:"
    cat "$lane_c_log"
    # Its steps' times, as scripts/arm64/tests.sh printed them.
    while IFS= read -r line; do STEP_TIMES+=("$line (lane c)"); done < <(grep -E '^ *[0-9]+s  arm64 tests: ' "$lane_c_log")
    rm -f "$lane_c_log"
    if [ "$lane_c_status" -ne 0 ]; then
        echo "error: lane c failed (its output above)" >&2
        exit "$lane_c_status"
    fi
fi

step ""
echo "==> all checks passed"
