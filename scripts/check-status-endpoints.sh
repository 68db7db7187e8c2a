#!/usr/bin/env bash
# Checks a running controller daemon's (or status-fixture's) HTTP endpoints as their consumers
# see them. Which daemon it is comes from /metrics (its NAME_state family); the checks are the
# same for every one, and a daemon whose package says what it shows (packaging/checks.json,
# "status": turnstiled's, barrierd's) is held to its own families, counters, /status keys and
# states besides:
#   1. /metrics parses with the Prometheus project's own Python parser
#      (prometheus_client.parser.text_string_to_metric_families) and has every family of the
#      runtime's (NAME_events_total, NAME_state, ..., the edge-to-relay histogram) and the
#      product's (turnstiled_credit), exactly one state at 1, the product's states and counters
#      (what the parser read is judged by `controller-checks status`, as are the next two);
#   2. /status is JSON with every DaemonSnapshot key (and the product's own: the turnstile's
#      credit), each counter among /metrics' event kinds, and /healthz answers 200 or 503;
#   3. / renders in headless Chromium: after its script ran, the DOM has the daemon's name,
#      its own diagram (one node per state /metrics names, no other), the state /status reports
#      highlighted there, and a row per counter; a screenshot is saved and its path printed, and
#      a phone-width one is read back with OCR (tesseract): the state's name must be on it.
#
# usage: scripts/check-status-endpoints.sh HOST:PORT [SCREENSHOT.png]
#   e.g. turnstiled run --board boards/sim.toml --http 127.0.0.1:9180 &
#        scripts/check-status-endpoints.sh 127.0.0.1:9180
# Installs what it needs on a fresh Debian/Ubuntu machine (curl, python3-pip, chromium,
# fonts-liberation and tesseract-ocr from apt; prometheus_client and pillow from PyPI).
# Exits non-zero with the reason on the first failed check.
set -euo pipefail
# The repository, where each product's package (and its packaging/checks.json) is found.
root=$(cd "$(dirname "$0")/.." && pwd)

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 HOST:PORT [SCREENSHOT.png]" >&2
    exit 2
fi
address=$1
base="http://$address"
screenshot=$(realpath -m "${2:-$(mktemp --tmpdir status-page-XXXXXX.png)}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# What it needs, and why, is declared in scripts/lib/packages.sh (check "status"); scripts/test.sh
# installs it up front, before its lanes run in parallel, so there this finds nothing missing.
# shellcheck source=scripts/lib/packages.sh
. "$(dirname "$0")/lib/packages.sh"
packages_ensure status
chromium_bin=$(command -v chromium || command -v chromium-browser)
# controller-checks: beside the daemon checked (DAEMON, when scripts/check-status-daemon.sh runs
# this), else the debug build's.
cd "$root"
. scripts/lib/controller-checks.sh
find_controller_checks "${DAEMON:-.build/debug/status-fixture}"

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

echo "==> $base/metrics"
headers="$work/metrics.headers"
curl -fsS -D "$headers" -o "$work/metrics.txt" "$base/metrics" || fail "GET $base/metrics failed"
grep -qi '^content-type: text/plain; version=0.0.4' "$headers" \
    || fail "/metrics content type is not text/plain; version=0.0.4: $(grep -i '^content-type' "$headers")"
# Read by the parser a scraper uses, written out for controller-checks to judge.
python3 - "$work/metrics.txt" "$work/families.json" <<'PY' || fail "/metrics (above)"
import json, sys
from prometheus_client.parser import text_string_to_metric_families

try:
    families = [dict(name=f.name, type=f.type, samples=[dict(name=s.name, labels=s.labels, value=repr(float(s.value)))
                                                         for s in f.samples])
                for f in text_string_to_metric_families(open(sys.argv[1], encoding="utf-8").read())]
except Exception as error:  # the parser raises ValueError and friends on malformed lines
    sys.exit(f"does not parse as Prometheus text: {error}")
json.dump(families, open(sys.argv[2], "w"))
PY
served=(--families "$work/families.json" --repository "$root")
"$controller_checks" status metrics "${served[@]}" || fail "/metrics (above)"

echo "==> $base/status and /healthz"
curl -fsS -D "$work/status.headers" -o "$work/status.json" "$base/status" || fail "GET $base/status failed"
grep -qi '^content-type: application/json' "$work/status.headers" || fail "/status is not application/json"
state=$("$controller_checks" status json "${served[@]}" --status "$work/status.json") || fail "/status (above)"
echo "ok: valid JSON, state $state"
health=$(curl -sS -o "$work/healthz.txt" -w '%{http_code}' "$base/healthz") || fail "GET $base/healthz failed"
case "$health" in
200 | 503) echo "ok: /healthz $health $(cat "$work/healthz.txt")" ;;
*) fail "/healthz answered $health, expected 200 (running) or 503" ;;
esac

echo "==> $base/ in headless Chromium"
# --virtual-time-budget lets the page's script run its first polls before the DOM is dumped and
# the picture taken; Chromium's own profile goes to a throwaway directory.
chromium_flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/profile"
    --window-size=1000,1040 --virtual-time-budget=3000)
"$chromium_bin" "${chromium_flags[@]}" --dump-dom "$base/" >"$work/dom.html" 2>"$work/chromium.log" \
    || { cat "$work/chromium.log" >&2; fail "chromium could not load $base/"; }
"$controller_checks" status page "${served[@]}" --status "$work/status.json" --dom "$work/dom.html" \
    || fail "the rendered page (above)"
"$chromium_bin" "${chromium_flags[@]}" --screenshot="$screenshot" "$base/" >"$work/chromium.log" 2>&1 \
    || { cat "$work/chromium.log" >&2; fail "chromium could not take a screenshot of $base/"; }
[ -s "$screenshot" ] || fail "chromium wrote no screenshot to $screenshot"
echo "screenshot: $screenshot"
# OCR reads the top of a phone-width rendering: the header and the state card alone (beside the
# diagram, OCR runs the state's line into the diagram's labels).
narrow="${screenshot%.png}-narrow.png"
"$chromium_bin" "${chromium_flags[@]}" --window-size=600,230 --screenshot="$narrow" "$base/" >"$work/chromium.log" 2>&1 \
    || { cat "$work/chromium.log" >&2; fail "chromium could not take a phone-width screenshot of $base/"; }
echo "screenshot (phone width): $narrow"
# Tesseract misses large coloured words on white; black on white it reads them.
python3 - "$narrow" "$work/ocr-input.png" <<'PY'
import sys
from PIL import Image

Image.open(sys.argv[1]).convert("L").point(lambda v: 0 if v < 200 else 255).save(sys.argv[2])
PY
tesseract "$work/ocr-input.png" "$work/ocr" >/dev/null 2>&1 || fail "tesseract could not read $narrow"
# The state is the only line that is one word, a state's name; OCR reads a capital inside a word
# (the turnstile's outOfOrder) as either case, so the letters are what matter.
sed 's/^[[:space:]]*//; s/[[:space:]]*$//' "$work/ocr.txt" | grep -ixF -- "$state" >/dev/null \
    || fail "OCR does not find '$state' on a line of its own in the screenshot; it reads: $(grep -v '^[[:space:]]*$' "$work/ocr.txt" | tr '\n' '|')"
echo "ok: the screenshot reads '$state' as the state"
echo "all status endpoint checks passed"
