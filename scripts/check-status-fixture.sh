#!/usr/bin/env bash
# The status endpoints checked end to end without a daemon: starts status-fixture (a fixed
# snapshot on a free loopback port), runs scripts/check-status-endpoints.sh against it, stops it.
# For CI; expects a debug build (`swift build --build-tests`) and builds the fixture if missing.
#
# usage: scripts/check-status-fixture.sh [SCREENSHOT.png]
set -euo pipefail
cd "$(dirname "$0")/.."

fixture=.build/debug/status-fixture
[ -x "$fixture" ] || swift build --product status-fixture
work=$(mktemp -d)
"$fixture" 0 unlocked running >"$work/out" 2>"$work/err" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

# The fixture prints its port once bound; a debug build starts within a second or two.
port=""
for _ in $(seq 1 100); do
    port=$(sed -n 's/^listening on 127\.0\.0\.1://p' "$work/out")
    [ -n "$port" ] && break
    kill -0 "$pid" 2>/dev/null || { cat "$work/err" >&2; echo "status-fixture exited" >&2; exit 1; }
    sleep 0.1
done
[ -n "$port" ] || { cat "$work/err" >&2; echo "status-fixture did not listen within 10 s" >&2; exit 1; }
scripts/check-status-endpoints.sh "127.0.0.1:$port" "$@"
