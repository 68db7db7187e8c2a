#!/usr/bin/env bash
# The whole test suite, as README.md gives it and .ci/run calls it:
#   1. debug build of everything, failing on any compiler warning in this package's sources;
#   2. every test (Swift Testing) on the debug build, and the parking barrier's (Examples/
#      ParkingBarrier, a package of its own on the public API); then, on the debug builds, each
#      daemon's (turnstiled's, then barrierd's) status endpoints (scripts/check-status-daemon.sh:
#      Prometheus parser, JSON, its page in headless Chromium) and the crash test of its durable
#      counts (scripts/crash-test.sh: kill -9 at 50 random moments);
#   3. the tests again under ThreadSanitizer and AddressSanitizer (scripts/sanitize.sh);
#   4. the allocation tests on an optimised build (AllocationTests/, a package of their own, so
#      that only what they test is compiled with -O);
#   5. the builds users ship (scripts/release-build.sh: release, static Swift runtime), each
#      once: turnstiled's in .build, barrierd's in Examples/ParkingBarrier's own .build; each at
#      most 25 MB stripped, its largest contributors printed (scripts/size-check.sh); each
#      daemon's event loop allocates nothing (scripts/check-loop-allocations.sh), and their .debs,
#      made from these binaries, are installed, upgraded, removed and purged on this machine,
#      alone and side by side (scripts/test-deb.sh --prebuilt);
#   6. the runtime core compiled alone in Embedded Swift for two microcontrollers;
#   7. libFuzzer on the board-file, scenario and control-protocol parsers (scripts/fuzz.sh);
#   8. hardware-in-the-loop: step 5's turnstiled, GPIO port contract and barrierd, the binaries
#      that ship, each run on libgpiod 1.6 and on 2.3 against the kernel's gpio-sim chip in a VM
#      (scripts/hil/run.sh).
# Installs what it needs on a fresh Debian/Ubuntu machine. STATUS=0 and CRASH=0 skip the status
# and crash checks of step 2; SANITIZE=0, DEB=0, FUZZ=0 and HIL=0 skip steps 3, 5's package,
# 7 and 8. How long each step took is printed at the end (and when a step fails).
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
# Building needs Swift alone: libgpiod and SQLite are opened at run time (dlopen), so no headers
# and no pkg-config. The count store's tests need SQLite's library (Swift's own install needs it).
dpkg -s libsqlite3-0 >/dev/null 2>&1 || need_apt+=(libsqlite3-0)
# libgpiod's library, not its headers: the binaries build without it and open it at run time; the
# tests of `run` and `lines` on a real board's chip find it (1.6 here; the HIL runs 1.6 and 2.3).
dpkg -s libgpiod2 >/dev/null 2>&1 || dpkg -s libgpiod3 >/dev/null 2>&1 || need_apt+=(libgpiod2)
if [ ${#need_apt[@]} -gt 0 ]; then
    echo "==> installing ${need_apt[*]}"
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

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
print_step_times() {
    local status=$?
    step ""
    echo "--- time per step (total $((SECONDS / 60)) min $((SECONDS % 60)) s)"
    printf '%s\n' "${STEP_TIMES[@]}"
    return $status
}
trap print_step_times EXIT

step "build (debug), no warnings allowed"
log=$(mktemp)
swift build --build-tests 2>&1 | tee "$log" | grep -E "error|warning: " || true
if grep -E "^$PWD/(Sources|Tests|Examples)/.*warning: " "$log" >/dev/null; then
    echo "error: the build has warnings (above); fix them" >&2
    exit 1
fi
grep -q "error:" "$log" && { echo "error: the build failed" >&2; exit 1; }
rm -f "$log"

step "tests (debug)"
swift test --skip-build

step "the parking barrier, a user's package on the public API (Examples/ParkingBarrier): build and tests"
swift build --build-tests --package-path Examples/ParkingBarrier 2>&1 | tail -5
swift test --skip-build --package-path Examples/ParkingBarrier

barrierd_debug=Examples/ParkingBarrier/.build/debug/barrierd
if [ "${STATUS:-1}" != 0 ]; then
    step "the daemon's status endpoints: Prometheus parser, JSON, headless Chromium"
    scripts/check-status-daemon.sh
    step "barrierd's status endpoints: the same, its page showing its own diagram"
    DAEMON="$barrierd_debug" scripts/check-status-daemon.sh
fi

if [ "${CRASH:-1}" != 0 ]; then
    step "crash test: kill -9 at random moments, every reported count durable (scripts/crash-test.sh)"
    TURNSTILED="$(swift build --show-bin-path)/turnstiled" scripts/crash-test.sh
    step "crash test of barrierd: requests and vehicles over the loop, kill -9 at random moments"
    DAEMON="$barrierd_debug" scripts/crash-test.sh
fi

if [ "${SANITIZE:-1}" != 0 ]; then
    step "tests under ThreadSanitizer and AddressSanitizer (scripts/sanitize.sh)"
    scripts/sanitize.sh
fi

step "allocation tests (release), a package of their own (AllocationTests/): only what they test built with -O"
swift test -c release --disable-testable-imports --package-path AllocationTests

step "the build users ship: release, static Swift runtime (scripts/release-build.sh)"
scripts/release-build.sh turnstiled gpio-contract

step "barrierd's release build, in Examples/ParkingBarrier/.build (the runtime compiled there for it)"
scripts/release-build.sh --package-path Examples/ParkingBarrier barrierd

step "the shipped binaries' size: at most 25 MB each, stripped (scripts/size-check.sh)"
scripts/size-check.sh .build/release/turnstiled
scripts/size-check.sh Examples/ParkingBarrier/.build/release/barrierd

step "its event loop allocates nothing (scripts/check-loop-allocations.sh)"
scripts/check-loop-allocations.sh

step "barrierd's event loop allocates nothing (scripts/check-loop-allocations.sh barrierd)"
scripts/check-loop-allocations.sh barrierd

if [ "${DEB:-1}" != 0 ]; then
    step "the .debs of these builds: build, install, purge (scripts/test-deb.sh --prebuilt)"
    scripts/test-deb.sh --prebuilt
fi

step "Embedded Swift check of the core"
scripts/check-embedded.sh

if [ "${FUZZ:-1}" != 0 ]; then
    step "fuzzing the board-file, scenario and control-protocol parsers"
    scripts/fuzz.sh
fi

if [ "${HIL:-1}" != 0 ]; then
    step "hardware-in-the-loop: libgpiod 1.6 and 2.3 against the kernel's gpio-sim, in a VM"
    scripts/hil/run.sh
fi

step ""
echo "==> all checks passed"
