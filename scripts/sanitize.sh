#!/usr/bin/env bash
# A package's tests under ThreadSanitizer or AddressSanitizer (with LeakSanitizer), each
# sanitizer in a build folder of its own: first the build, which fails on any compiler warning
# in this repository's sources, then every test on it. TSan watches the threads that share a
# machine: the multi-sender, inbox and trace-drain tests above all; ASan every buffer the event
# path reuses. Leaks inside other libraries' test tooling are not ours
# (scripts/lsan-suppressions.txt says which); any other fails.
#
#   scripts/sanitize.sh address|thread                      this package
#   scripts/sanitize.sh address --package-path DIR          a package that depends on this one
#                                                           (Examples/ParkingBarrier)
#   ... --build-only | --test-only                          one half (the test script builds
#                                                           both first, then runs both test runs
#                                                           at once: each uses under one core)
#
# Every package is built in this package's folder for the sanitizer (.build-SANITIZER-sanitizer),
# so a dependent package compiles only its own targets: the runtime's are already there, compiled
# with the same flags. SwiftPM caches the plan of a build folder per root package, so sharing one
# takes --disable-build-manifest-caching (without it, the second package's build would plan
# nothing of its own).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: $0 address|thread [--package-path DIR] [--build-only|--test-only]" >&2; exit 64; }
[ $# -ge 1 ] || usage
sanitizer=$1
shift
case $sanitizer in address|thread) ;; *) usage ;; esac
package_path=. build=1 test=1
while [ $# -gt 0 ]; do
    case $1 in
        --package-path) [ $# -ge 2 ] || usage; package_path=$2; shift 2 ;;
        --build-only) test=0; shift ;;
        --test-only) build=0; shift ;;
        *) usage ;;
    esac
done
[ "$build$test" != 00 ] || usage
[ -f "$package_path/Package.swift" ] || { echo "error: $package_path/Package.swift not found (--package-path)" >&2; exit 64; }

# print_suppressions=0: the CLI tests read the stderr of the daemon they start.
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-suppressions.txt:print_suppressions=0"
export TSAN_OPTIONS="halt_on_error=1"
flags=(--sanitize="$sanitizer" --scratch-path "$PWD/.build-$sanitizer-sanitizer" --disable-build-manifest-caching
    # CONTROLLERFSM_SANITIZED: tests that measure speed check behaviour only (an instrumented
    # build's speed is not the product's). TSan checks the shipped MutexLock: it sees the
    # acquire and release of its lock word.
    -Xswiftc -DCONTROLLERFSM_SANITIZED
    # Line tables are all a sanitizer's report needs (function, file, line of each frame); the
    # full debug information of every dependency is most of what an unoptimised build writes.
    -Xswiftc -gline-tables-only)
# CONTROLLERFSM_THREAD_SANITIZED: property tests run a fifth of their cases under TSan, which
# looks for races between threads where a property's cases are one thread's work
# (Tests/ControllerTestSupport/PropertyCases.swift); ASan runs every case.
[ "$sanitizer" != thread ] || flags+=(-Xswiftc -DCONTROLLERFSM_THREAD_SANITIZED)

log=$(mktemp)
trap 'rm -f "$log"' EXIT
if [ "$build" = 1 ]; then
    echo "==> build under the $sanitizer sanitizer ($package_path)"
    set +e
    swift build --build-tests --package-path "$package_path" "${flags[@]}" >"$log" 2>&1
    status=$?
    set -e
    grep -E "error|warning: " "$log" | grep -v "Cannot export local symbol" || true
    if [ "$status" -ne 0 ]; then
        tail -40 "$log"
        echo "error: the build under the $sanitizer sanitizer failed (above)" >&2
        exit "$status"
    fi
    if grep -E "^$PWD/(Sources|Tests|Examples|AllocationTests|Fuzz)/.*warning: " "$log" >/dev/null; then
        echo "error: the build has warnings (above); fix them" >&2
        exit 1
    fi
    grep -E "^Build complete" "$log" || true
fi
[ "$test" = 1 ] || exit 0

echo "==> tests under the $sanitizer sanitizer ($package_path)"
set +e
# Swift Testing only: the suites have no XCTest cases, and XCTest's runner leaks on its own.
swift test --skip-build --disable-xctest --package-path "$package_path" "${flags[@]}" >"$log" 2>&1
status=$?
set -e
# The failures first (a long run's tail can cut them off), then the end of the run.
if grep -qE "✘|recorded an issue|ThreadSanitizer|AddressSanitizer|LeakSanitizer" "$log"; then
    echo "--- failures and sanitizer reports:"
    # Each failing test's message whole (a daemon's stderr is in it, indented: a report from a
    # child process starts "  ==PID==ERROR"), and every sanitizer report with its stack.
    # A message runs to the next line of the test runner's own (✔, ◇, ✘): an argument's value
    # may span lines that start anywhere (a scenario's "0.5 push").
    awk '
        /✘.*recorded an issue/ { block = 1; lines = 0; print; next }
        block && !/^(✔|◇|✘)/ && lines < 150 { print; lines++; next }
        { block = 0 }
        /^[ \t]*(WARNING: ThreadSanitizer|==[0-9]+==ERROR)/ { report = 40 }
        report > 0 { print; report-- }
    ' "$log" | sed -n 1,600p
    echo "--- end of the run:"
fi
tail -40 "$log"
if [ "$status" -ne 0 ]; then
    echo "error: the tests failed under the $sanitizer sanitizer (above)" >&2
    exit "$status"
fi
