#!/usr/bin/env bash
# Crash test of a controller daemon's durable counts:
#   scripts/crash-test.sh [KILLS]      (default 50)
#
# The test is `controller-checks crash` (Sources/ControllerChecks, tested in its own test target
# and run on the debug build by TurnstileTests); this script finds the binaries and runs it.
#
# Runs the daemon on its simulated board with a fresh --database, drives a stream of random
# inputs through `ctl` (turnstiled: coins and passages; barrierd: requests and vehicles over the
# loop), and at a random moment (0.2–1.5 s in) takes the counts the daemon reports (`ctl status
# --json`), then kills it with SIGKILL and starts it again on the same database. Every count
# reported before the kill must be in the database afterwards (read by `stats --json` with the
# daemon down, and by `ctl status --json` from the restarted daemon), and every balance stats
# reports (each `*Balances` key) must hold. The balances its checks.json lists over a standing
# gauge (turnstiled's money: coins == passages + expiredCredits + coinsOutOfService +
# creditsVoidedByRestart + credit) hold before the kill, in the database after it and after the
# restart, whose gauge is 0 (what stood at the kill is what the restart voids).
# Midway it also copies the database while the daemon writes (SQLite's VACUUM INTO: one
# snapshot, the write-ahead log's pages included), truncates the copy mid-file, and
# checks that the daemon refuses the copy (exit 4, a message naming it as damaged) and leaves
# it byte for byte as it was.
#
# DAEMON= the daemon's binary (TURNSTILED= is the same; default the debug build
# .build/debug/turnstiled: `swift build` first; the test script gives it the shipped builds,
# $(scripts/release-build.sh --show-bin-path)/turnstiled and .../barrierd). Which inputs it is
# driven with comes from its package's packaging/checks.json ("crash"), the package found by the
# name the binary gives itself (its --help's USAGE line): a new controller's package gets this
# test by saying there what drives it.
# BOARD= the board (default: the product's boards/sim.toml, with checks.json's edits). SEED=N
# repeats a run's random choices. CONTROLLER_CHECKS= the checks' binary (default: beside DAEMON,
# else .build/debug/controller-checks).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/controller-checks.sh

kills="${1:-50}"
daemon="${DAEMON:-${TURNSTILED:-.build/debug/turnstiled}}"
if [ ! -x "$daemon" ]; then
    echo "error: $daemon is not built; run \`swift build\` first (or set DAEMON)" >&2
    exit 2
fi
find_controller_checks "$daemon"
exec "$controller_checks" crash --daemon "$daemon" --kills "$kills" ${BOARD:+--board "$BOARD"} ${SEED:+--seed "$SEED"}
