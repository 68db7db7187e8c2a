#!/usr/bin/env bash
# The package's Swift tests on arm64: built for aarch64 with the Swift SDK made here
# (scripts/arm64/sdk.sh), optimized as the shipped binaries are, and run under qemu-user in the
# SDK's root, one test module at a time, each one's time printed. Called by scripts/test.sh (the
# build in the background from the start, the run beside the two lanes of shipped-binary
# checks) and by scripts/arm64/check.sh --tests; alone:
#
#   scripts/arm64/tests.sh [--build-only | --run-only] [all|package]
#     all      (the default) every test module of the package, and each example package's
#              tests (Examples/*), built where the runtime's build is (seconds: only the
#              example's own targets are compiled)
#     package  the package's test modules alone
#     --build-only   the build alone (in .build-arm64-tests)
#     --run-only     the run alone, on that build as it is
#
# Optimized (-c release, with -enable-testing for the tests' @testable imports), not debug: the
# code under test is then the code the Pi runs, and qemu runs it 3 to 13 times faster than a
# debug build (the whole package in about 6 minutes on 2 cores, where a debug build's modules
# took 15 minutes with the two slowest left out). A test that starts a built binary starts the
# aarch64 one built beside it. The optimizer also ends a value's life at its last use, which a
# debug build does not: a pointer read after the buffer it points into was freed traps here.
# The build has a folder of its own, .build-arm64-tests, so that it can run beside the release
# build for aarch64 (.build-arm64, with the shipped flags), which SwiftPM would otherwise make
# wait for its lock.
# Left out always, and why: the site page's test in a browser (no aarch64 Chromium in the root:
# CONTROLLER_REQUIRE_BROWSER is not set, so it says it skipped).
# Needs root (the SDK's chroot, binfmt_misc).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib/arm64.sh

scope=all build=1 run=1
usage() { echo "usage: $0 [--build-only | --run-only] [all|package]" >&2; exit 64; }
while [ $# -gt 0 ]; do
    case $1 in
        --build-only) run=0; shift ;;
        --run-only) build=0; shift ;;
        package | all) scope=$1; shift ;;
        *) usage ;;
    esac
done
[ "$build$run" != 00 ] || usage

SCRATCH=.build-arm64-tests
# How the tests are built, and where that build is found again for the run. Without debug
# information (-gnone, after SwiftPM's own -g): it is a part of the build's time and of the
# link's, and nothing reads it here (a failure names its test's file and line by itself; the
# runtime's backtracer does not run under qemu-user).
BUILD_FLAGS=(-c release -Xswiftc -enable-testing -Xswiftc -gnone --scratch-path "$SCRATCH")

examples=()
for conf in Examples/*/packaging/product.conf; do
    [ -f "$conf" ] || continue
    examples+=("${conf%/packaging/product.conf}")
done

STEP_PREFIX="arm64 tests: " STEP_TITLE="arm64 tests"
. scripts/lib/step-times.sh

if [ "$build" = 1 ]; then
    step "every test, built for aarch64 (optimized, $SCRATCH; $(arm64_swift_version))"
    scripts/arm64/swift.sh build --build-tests "${BUILD_FLAGS[@]}"
    if [ "$scope" = all ]; then
        for example in "${examples[@]}"; do
            step "$example's tests, built for aarch64 where the runtime's build is"
            scripts/arm64/swift.sh build --build-tests --package-path "$example" "${BUILD_FLAGS[@]}" --disable-build-manifest-caching
        done
    fi
fi
[ "$run" = 1 ] || exit 0

arm64_binfmt
# The W3C SCXML suite the conformance test reads, where it reads it outside.
w3c=${SCXML_W3C_DIR:-$(cd "$ARM64_REPO/.." && pwd)/shared/scxml-w3c}
[ ! -d "$w3c" ] || ARM64_BINDS=("$w3c")
# CONTROLLER_TESTS_EMULATED: a test that measures speed checks behaviour only (qemu-user's
# speed is not a Pi's), the waits and time limits are longer, property tests run a twentieth of
# their cases (Tests/ControllerTestSupport/PropertyCases.swift), and what qemu-user does its own
# way is said by the test that meets it.
ARM64_ENV=(CONTROLLER_MQTT_REQUIRE_BROKER=1 CONTROLLER_TESTS_EMULATED=1 "SCXML_W3C_DIR=$w3c")
tests=$(scripts/arm64/swift.sh build "${BUILD_FLAGS[@]}" --show-bin-path)
[ -x "$tests/ControllerFSMPackageTests.xctest" ] || { echo "error: no aarch64 test build in $SCRATCH: run $0 --build-only first" >&2; exit 1; }
# run_tests BINARY [MODULE]: the test binary under qemu, the tests of MODULE only when given.
# Each test's start is a line; what is shown is what failed, skipped and the totals.
run_tests() {
    local binary=$1 module=${2:-} log=$work/tests.log status=0 command
    command="$(printf '%q' "$binary") --testing-library swift-testing"
    [ -z "$module" ] || command+=" --filter $(printf '%q' "^$module\\.")"
    arm64_in_root "$command" >"$log" 2>&1 || status=$?
    awk '/^✔ Test run with / || !(/ started\.$/ || /^$/ || /^✔ (Test|Suite) .* passed after/)' "$log"
    [ "$status" -eq 0 ] || { echo "error: $(basename "$binary")${module:+ ($module)} failed under qemu (status $status)" >&2; exit "$status"; }
}
# One module at a time, so each one's time is printed: a module grown slow under emulation is
# seen by name.
for module_dir in Tests/*/; do
    module=$(basename "$module_dir")
    grep -rqs '@Test' "$module_dir" || continue
    step "$module under qemu"
    run_tests "$tests/ControllerFSMPackageTests.xctest" "$module"
done
if [ "$scope" = all ]; then
    for example in "${examples[@]}"; do
        step "$example's tests under qemu"
        package=$(sed -n 's/^ *name: "\([^"]*\)".*/\1/p' "$example/Package.swift" | sed -n 1p)
        run_tests "$tests/${package}PackageTests.xctest"
    done
fi
step ""
echo "==> arm64 tests ($scope): all passed"
