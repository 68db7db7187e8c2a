#!/usr/bin/env bash
# The whole test suite under ThreadSanitizer and then AddressSanitizer (with LeakSanitizer),
# each in a build folder of its own. TSan watches the threads that share a machine: the
# multi-sender, inbox and trace-drain tests above all; ASan every buffer the event path reuses.
# Leaks inside other libraries' test tooling are not ours (scripts/lsan-suppressions.txt says
# which); any other fails.
#
#   scripts/sanitize.sh            both
#   scripts/sanitize.sh thread     one of thread, address
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -gt 0 ]; then sanitizers=("$@"); else sanitizers=(thread address); fi
# print_suppressions=0: the CLI tests read the stderr of the turnstiled they start.
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-suppressions.txt:print_suppressions=0"
export TSAN_OPTIONS="halt_on_error=1"
for sanitizer in "${sanitizers[@]}"; do
    echo "==> tests under the ${sanitizer} sanitizer"
    # CONTROLLERFSM_SANITIZED: tests that measure speed check behaviour only (an instrumented
    # build's speed is not the product's). TSan checks the shipped MutexLock: it sees the
    # acquire and release of its lock word.
    defines=(-Xswiftc -DCONTROLLERFSM_SANITIZED)
    # Swift Testing only: the suite has no XCTest cases, and XCTest's runner leaks on its own.
    log=$(mktemp)
    set +e
    swift test --sanitize="$sanitizer" --scratch-path ".build-$sanitizer-sanitizer" --disable-xctest "${defines[@]}" >"$log" 2>&1
    status=$?
    set -e
    # The failures first (a long run's tail can cut them off), then the end of the run.
    if grep -qE "✘|recorded an issue|ThreadSanitizer|AddressSanitizer|LeakSanitizer" "$log"; then
        echo "--- failures and sanitizer reports:"
        grep -E -A12 "✘.*recorded an issue|^WARNING: ThreadSanitizer|^==[0-9]+==ERROR" "$log" | head -200 || true
        echo "--- end of the run:"
    fi
    grep -vE "^\[[0-9]+/[0-9]+\]|Cannot export local symbol|^(Building|Compiling|Write|Linking)" "$log" | tail -60  || true
    rm -f "$log"
    if [ "$status" -ne 0 ]; then
        echo "error: the tests failed under the $sanitizer sanitizer (above)" >&2
        exit "$status"
    fi
done
