#!/usr/bin/env bash
# The status endpoints checked end to end on a real daemon: starts `DAEMON run` on its simulated
# board (a free loopback port, a fresh database, a control socket), breaks it with `DAEMON ctl
# fault` so the state holds still (turnstiled's broken and barrierd's fault have no timer), then
# runs scripts/check-status-endpoints.sh against it — /metrics through Python's Prometheus
# parser, /status as JSON, the page in headless Chromium showing the daemon's own diagram with
# that state highlighted — and stops it with SIGTERM.
#
# usage: scripts/check-status-daemon.sh [SCREENSHOT.png]
#   DAEMON= the daemon (TURNSTILED= is the same; default .build/debug/turnstiled, built when
#   missing; the test script gives it the shipped builds, $(scripts/release-build.sh
#   --show-bin-path)/turnstiled and .../barrierd)
#   BOARD= its board (default: boards/sim.toml of the package that declares it)
set -euo pipefail
cd "$(dirname "$0")/.."

daemon=${DAEMON:-${TURNSTILED:-.build/debug/turnstiled}}
[ -x "$daemon" ] || [ -n "${DAEMON:-}${TURNSTILED:-}" ] || swift build --product turnstiled
[ -x "$daemon" ] || { echo "error: $daemon is not built" >&2; exit 1; }
# The name the binary gives itself (its --help's USAGE line) finds its package and board.
name=$("$daemon" --help | sed -n 's/^USAGE: \([a-z][a-z0-9-]*\) .*/\1/p' | sed -n 1p)
[ -n "$name" ] || { echo "error: $daemon --help has no \"USAGE: NAME ...\" line: not a controller's daemon" >&2; exit 1; }
board=${BOARD:-$(scripts/product-package.sh "$name")/boards/sim.toml}
work=$(mktemp -d)
"$daemon" run --board "$board" --http 127.0.0.1:0 --database "$work/counts.sqlite" \
    --control-socket "$work/control.sock" >"$work/out" 2>"$work/err" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

port=""
for _ in $(seq 1 150); do
    port=$(sed -n 's#.*status page and metrics on http://127\.0\.0\.1:\([0-9]*\)/.*#\1#p' "$work/err" | sed -n 1p)
    [ -n "$port" ] && [ -S "$work/control.sock" ] && break
    kill -0 "$pid" 2>/dev/null || { cat "$work/err" >&2; echo "$name exited" >&2; exit 1; }
    sleep 0.1
done
[ -n "$port" ] || { cat "$work/err" >&2; echo "$name did not serve HTTP within 15 s" >&2; exit 1; }
ctl() { "$daemon" ctl --socket "$work/control.sock" "$@"; }
# The innermost state: the second word of `ctl status`' first line ("state    locked in ...").
state() { ctl status | awk '$1 == "state" && !found { print $2; found = 1 }'; }
# The state before the fault, then the one it leads to once the controller has taken it.
before=$(state)
ctl fault >/dev/null
for _ in $(seq 1 50); do
    [ "$(state)" = "$before" ] || break
    sleep 0.1
done
[ "$(state)" != "$before" ] || { echo "$name is still $before 5 s after \`ctl fault\`" >&2; exit 1; }
DAEMON=$daemon scripts/check-status-endpoints.sh "127.0.0.1:$port" "$@"
kill -TERM "$pid"
wait "$pid"
echo "status endpoints of the running $name: ok"
