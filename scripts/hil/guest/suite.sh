#!/bin/sh
# Runs every scenario /hil/guest/scenarios/*.sh (sorted by name), each as a process of its own
# under a time limit, and prints the tally. A scenario reports with pass/fail from lib.sh; one
# that exits non-zero or times out without reporting a failure is failed here.
# HIL_ONLY (from the kernel command line hil.only=) keeps the scenarios matching *HIL_ONLY*.
# shellcheck source=scripts/hil/guest/lib.sh
. /hil/guest/lib.sh

SCENARIO_TIMEOUT_S=300          # one scenario, wall clock inside the VM: 80-daemon starts the daemon
                                # six times and ctl dozens of times, each a process start under TCG

: >"$HIL_RESULTS"
# One binary per program serves both libgpiod generations; the scenarios call it as
# /hil/bin/GEN/NAME, which forces generation GEN (the library it finds is checked in 05-library).
for bin in "$HIL_BIN"/*; do
    [ -f "$bin" ] && [ -x "$bin" ] || continue
    name=${bin##*/}
    for gen in $HIL_GENERATIONS; do
        mkdir -p "$HIL_BIN/$gen"
        printf '#!/bin/sh\nCONTROLLERFSM_LIBGPIOD=%s exec %s "$@"\n' "${gen#v}" "$bin" >"$HIL_BIN/$gen/$name"
        chmod 0755 "$HIL_BIN/$gen/$name"
    done
    info "$name: sha256 $(sha256sum "$bin" | cut -d' ' -f1), run as $(echo "$HIL_GENERATIONS" | sed "s|[^ ]*|$HIL_BIN/&/$name|g")"
done
for s in /hil/guest/scenarios/*.sh; do
    name=$(basename "$s" .sh)
    case $name in *"${HIL_ONLY:-}"*) ;; *) continue ;; esac
    info "scenario $name"
    before=$(grep -c '^FAIL' "$HIL_RESULTS")
    t0=$(now_ms)
    timeout "$SCENARIO_TIMEOUT_S" sh "$s"
    rc=$?
    # The scenarios' times, for the log: what a slower guest (arm64 under TCG) costs, and where.
    echo "HIL TIME $name $(( ($(now_ms) - t0) / 1000 ))s"
    after=$(grep -c '^FAIL' "$HIL_RESULTS")
    if [ "$rc" -ne 0 ] && [ "$after" -eq "$before" ]; then
        if [ "$rc" -eq 143 ] || [ "$rc" -eq 124 ]; then
            fail "$name" "timed out after ${SCENARIO_TIMEOUT_S}s"
        else
            fail "$name" "exited with status $rc"
        fi
    fi
done

passed=$(grep -c '^PASS' "$HIL_RESULTS")
failed=$(grep -c '^FAIL' "$HIL_RESULTS")
info "suite: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
