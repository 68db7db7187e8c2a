#!/usr/bin/env bash
# The status endpoints checked end to end on the real daemon: starts `turnstiled run` on the
# simulated board (a free loopback port, a fresh database, a control socket), breaks the
# turnstile with `turnstiled ctl fault` so the state holds still (broken has no timer), then
# runs scripts/check-status-endpoints.sh against it — /metrics through Python's Prometheus
# parser, /status as JSON, the page in headless Chromium — and stops it with SIGTERM.
#
# usage: scripts/check-status-daemon.sh [SCREENSHOT.png]     (expects a debug build)
set -euo pipefail
cd "$(dirname "$0")/.."

turnstiled=${TURNSTILED:-.build/debug/turnstiled}
[ -x "$turnstiled" ] || swift build --product turnstiled
work=$(mktemp -d)
"$turnstiled" run --board boards/sim.toml --http 127.0.0.1:0 --database "$work/counts.sqlite" \
    --control-socket "$work/control.sock" >"$work/out" 2>"$work/err" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

port=""
for _ in $(seq 1 150); do
    port=$(sed -n 's#.*status page and metrics on http://127\.0\.0\.1:\([0-9]*\)/.*#\1#p' "$work/err" | head -1)
    [ -n "$port" ] && [ -S "$work/control.sock" ] && break
    kill -0 "$pid" 2>/dev/null || { cat "$work/err" >&2; echo "turnstiled exited" >&2; exit 1; }
    sleep 0.1
done
[ -n "$port" ] || { cat "$work/err" >&2; echo "turnstiled did not serve HTTP within 15 s" >&2; exit 1; }
"$turnstiled" ctl --socket "$work/control.sock" fault >/dev/null
for _ in $(seq 1 50); do
    "$turnstiled" ctl --socket "$work/control.sock" status | grep -q "state *broken" && break
    sleep 0.1
done
scripts/check-status-endpoints.sh "127.0.0.1:$port" "$@"
kill -TERM "$pid"
wait "$pid"
echo "status endpoints of the running daemon: ok"
