#!/usr/bin/env bash
# Checks a running turnstiled's (or status-fixture's) HTTP endpoints as their consumers see them:
#   1. /metrics parses with the Prometheus project's own Python parser
#      (prometheus_client.parser.text_string_to_metric_families) and has every turnstiled family;
#   2. /status is JSON with every DaemonSnapshot key, and /healthz answers 200 or 503;
#   3. / renders in headless Chromium: after its script ran, the DOM shows the state /status
#      reports, highlighted in the diagram; a screenshot is saved and its path printed, and a
#      phone-width one is read back with OCR (tesseract): the state's name must be on it.
#
# usage: scripts/check-status-endpoints.sh HOST:PORT [SCREENSHOT.png]
#   e.g. turnstiled run --board boards/sim.toml --http 127.0.0.1:9180 &
#        scripts/check-status-endpoints.sh 127.0.0.1:9180
# Installs what it needs on a fresh Debian/Ubuntu machine (curl, python3-pip, chromium and
# tesseract-ocr from apt; prometheus_client and pillow from PyPI).
# Exits non-zero with the reason on the first failed check.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 HOST:PORT [SCREENSHOT.png]" >&2
    exit 2
fi
address=$1
base="http://$address"
screenshot=${2:-$(mktemp --tmpdir turnstiled-status-XXXXXX.png)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sudo_cmd=""
[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
need_apt=()
command -v curl >/dev/null 2>&1 || need_apt+=(curl)
command -v python3 >/dev/null 2>&1 || need_apt+=(python3)
python3 -m pip --version >/dev/null 2>&1 || need_apt+=(python3-pip)
chromium_bin=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium_bin" ] || need_apt+=(chromium)
command -v tesseract >/dev/null 2>&1 || need_apt+=(tesseract-ocr)
if [ ${#need_apt[@]} -gt 0 ]; then
    echo "==> installing ${need_apt[*]}"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need_apt[@]}" >/dev/null
    chromium_bin=$(command -v chromium || command -v chromium-browser)
fi
need_pip=()
python3 -c "import prometheus_client" 2>/dev/null || need_pip+=(prometheus_client)
python3 -c "import PIL" 2>/dev/null || need_pip+=(pillow)
if [ ${#need_pip[@]} -gt 0 ]; then
    echo "==> installing ${need_pip[*]} (PyPI)"
    # Debian 12 marks its Python as externally managed; these are self-contained wheels.
    python3 -m pip install --quiet --user "${need_pip[@]}" 2>/dev/null \
        || python3 -m pip install --quiet --user --break-system-packages "${need_pip[@]}"
fi

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

echo "==> $base/metrics"
headers="$work/metrics.headers"
curl -fsS -D "$headers" -o "$work/metrics.txt" "$base/metrics" || fail "GET $base/metrics failed"
grep -qi '^content-type: text/plain; version=0.0.4' "$headers" \
    || fail "/metrics content type is not text/plain; version=0.0.4: $(grep -i '^content-type' "$headers")"
python3 - "$work/metrics.txt" <<'PY' || fail "/metrics (above)"
import sys
from prometheus_client.parser import text_string_to_metric_families

text = open(sys.argv[1], encoding="utf-8").read()
try:
    families = {f.name: f for f in text_string_to_metric_families(text)}
except Exception as error:  # the parser raises ValueError and friends on malformed lines
    sys.exit(f"does not parse as Prometheus text: {error}")
# The parser names a counter family without its _total suffix.
expected = {
    "turnstiled_events": "counter",
    "turnstiled_dispatched_events": "counter",
    "turnstiled_dropped_commands": "counter",
    "turnstiled_lost_edges": "counter",
    "turnstiled_trace_losses": "counter",
    "turnstiled_state": "gauge",
    "turnstiled_phase": "gauge",
    "turnstiled_credit": "gauge",
    "turnstiled_queue_depth": "gauge",
    "turnstiled_uptime_seconds": "gauge",
    "turnstiled_edge_to_relay_seconds": "histogram",
}
problems = []
for name, kind in expected.items():
    if name not in families:
        problems.append(f"family {name} missing")
    elif families[name].type != kind:
        problems.append(f"family {name} is a {families[name].type}, expected a {kind}")
if not problems:
    current = [s.labels["state"] for s in families["turnstiled_state"].samples if s.value == 1]
    if len(current) != 1:
        problems.append(f"turnstiled_state has {len(current)} states at 1, expected exactly one")
    kinds = {s.labels.get("kind") for s in families["turnstiled_events"].samples}
    for kind in ("coins", "passages", "forcedPushes", "ignored"):
        if kind not in kinds:
            problems.append(f'turnstiled_events_total{{kind="{kind}"}} missing')
if problems:
    sys.exit("; ".join(problems))
samples = sum(len(f.samples) for f in families.values())
print(f"ok: {len(families)} families, {samples} samples, current state {current[0]}")
PY

echo "==> $base/status and /healthz"
curl -fsS -D "$work/status.headers" -o "$work/status.json" "$base/status" || fail "GET $base/status failed"
grep -qi '^content-type: application/json' "$work/status.headers" || fail "/status is not application/json"
state=$(python3 - "$work/status.json" <<'PY'
import json, sys

try:
    status = json.load(open(sys.argv[1], encoding="utf-8"))
except ValueError as error:
    sys.exit(f"/status is not valid JSON: {error}")
keys = {"phase", "state", "credit", "counters", "uptimeSeconds", "board", "chip", "events",
        "queueDepth", "droppedCommands", "lostEdges", "traceLosses", "lastTransitions"}
missing = sorted(keys - status.keys())
if missing:
    sys.exit(f"/status lacks {', '.join(missing)}")
for transition in status["lastTransitions"]:
    if not {"time", "from", "event", "to"} <= transition.keys():
        sys.exit(f"/status has a transition without time, from, event and to: {transition}")
print(status["state"])
PY
) || fail "/status (above)"
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
python3 - "$work/dom.html" "$state" <<'PY' || fail "the rendered page (above)"
import re, sys

dom, state = open(sys.argv[1], encoding="utf-8").read(), sys.argv[2]
if 'data-live="yes"' not in dom:
    sys.exit("the page's script never got an answer from /status (body is not data-live=yes)")
shown = re.search(r'<div id="state"[^>]*>([^<]*)</div>', dom)
if not shown or shown.group(1) != state:
    sys.exit(f"the page shows state {shown.group(1) if shown else 'nothing'!r}, /status says {state!r}")
current = re.findall(r'<g class="node current" data-state="([^"]+)"', dom)
if current != [state]:
    sys.exit(f"the diagram highlights {current}, expected [{state!r}]")
if "<td>coins</td>" not in dom:
    sys.exit("the counters table was not drawn")
print(f"ok: the rendered page shows {state}, highlighted in the diagram")
PY
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
python3 - "$work/ocr.txt" "$state" <<'PY' || fail "the screenshot (above)"
import sys

lines = [line.strip() for line in open(sys.argv[1], encoding="utf-8") if line.strip()]
state = sys.argv[2]
# The state is the only line that is one word of the five; OCR reads the capital O in
# outOfOrder as either case, so the letters are what matter.
if state.lower() not in (line.lower() for line in lines):
    sys.exit(f"OCR does not find {state!r} on a line of its own in the screenshot; it reads {lines}")
print(f"ok: the screenshot reads {state!r} as the state")
PY
echo "all status endpoint checks passed"
