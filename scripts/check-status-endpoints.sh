#!/usr/bin/env bash
# Checks a running controller daemon's (or status-fixture's) HTTP endpoints as their consumers
# see them. Which daemon it is comes from /metrics (its NAME_state family); the checks are the
# same for every one, and a daemon whose package says what it shows (packaging/checks.json,
# "status": turnstiled's, barrierd's) is held to its own families, counters, /status keys and
# states besides:
#   1. /metrics parses with the Prometheus project's own Python parser
#      (prometheus_client.parser.text_string_to_metric_families) and has every family of the
#      runtime's (NAME_events_total, NAME_state, ..., the edge-to-relay histogram) and the
#      product's (turnstiled_credit), exactly one state at 1, the product's states and counters;
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
export CONTROLLERFSM_ROOT=$(cd "$(dirname "$0")/.." && pwd)

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 HOST:PORT [SCREENSHOT.png]" >&2
    exit 2
fi
address=$1
base="http://$address"
screenshot=${2:-$(mktemp --tmpdir status-page-XXXXXX.png)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# What it needs, and why, is declared in scripts/lib/packages.sh (check "status"); scripts/test.sh
# installs it up front, before its lanes run in parallel, so there this finds nothing missing.
# shellcheck source=scripts/lib/packages.sh
. "$(dirname "$0")/lib/packages.sh"
packages_ensure status
chromium_bin=$(command -v chromium || command -v chromium-browser)

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

echo "==> $base/metrics"
headers="$work/metrics.headers"
curl -fsS -D "$headers" -o "$work/metrics.txt" "$base/metrics" || fail "GET $base/metrics failed"
grep -qi '^content-type: text/plain; version=0.0.4' "$headers" \
    || fail "/metrics content type is not text/plain; version=0.0.4: $(grep -i '^content-type' "$headers")"
python3 - "$work/metrics.txt" "$work/daemon.json" <<'PY' || fail "/metrics (above)"
import json, os, subprocess, sys
from prometheus_client.parser import text_string_to_metric_families

# What a product must show besides the runtime's families, as its package says
# (packaging/checks.json, "status"): its own gauges, event kinds among its counters, /status
# keys and states (the diagram's nodes are checked against the states /metrics names; these pin
# them, so a daemon serving another's page fails). A daemon no package declares (status-fixture)
# gets the runtime's checks alone.
def product_checks(daemon):
    root = os.environ["CONTROLLERFSM_ROOT"]
    found = subprocess.run([f"{root}/scripts/product-package.sh", daemon], capture_output=True, text=True)
    if found.returncode != 0:
        return None
    try:
        return json.load(open(f"{root}/{found.stdout.strip()}/packaging/checks.json", encoding="utf-8"))["status"]
    except (OSError, ValueError, KeyError):
        return None

text = open(sys.argv[1], encoding="utf-8").read()
try:
    families = {f.name: f for f in text_string_to_metric_families(text)}
except Exception as error:  # the parser raises ValueError and friends on malformed lines
    sys.exit(f"does not parse as Prometheus text: {error}")
# The daemon's name prefixes every family; its state gauge (NAME_state{state=...}) says it.
state_families = [f for f in families.values()
                  if f.type == "gauge" and f.name.endswith("_state") and f.samples
                  and all("state" in s.labels for s in f.samples)]
if len(state_families) != 1:
    sys.exit(f"expected one NAME_state gauge with a state label, found {[f.name for f in state_families]}")
daemon = state_families[0].name[: -len("_state")]
known = product_checks(daemon)
product = known or dict(gauges=[], kinds=[], statusKeys=[], states=None)
# The parser names a counter family without its _total suffix.
expected = {
    "events": "counter",
    "dispatched_events": "counter",
    "dropped_commands": "counter",
    "lost_edges": "counter",
    "trace_losses": "counter",
    "state": "gauge",
    "phase": "gauge",
    "queue_depth": "gauge",
    "uptime_seconds": "gauge",
    "edge_to_relay_seconds": "histogram",
}
expected.update({gauge: "gauge" for gauge in product["gauges"]})
problems = []
for suffix, kind in expected.items():
    name = f"{daemon}_{suffix}"
    if name not in families:
        problems.append(f"family {name} missing")
    elif families[name].type != kind:
        problems.append(f"family {name} is a {families[name].type}, expected a {kind}")
if not problems:
    states = [s.labels["state"] for s in families[f"{daemon}_state"].samples]
    current = [s.labels["state"] for s in families[f"{daemon}_state"].samples if s.value == 1]
    if len(current) != 1:
        problems.append(f"{daemon}_state has {len(current)} states at 1, expected exactly one")
    if product["states"] is not None and sorted(states) != sorted(product["states"]):
        problems.append(f"{daemon}_state names the states {states}, expected {daemon}'s {product['states']}")
    kinds = sorted({s.labels.get("kind") for s in families[f"{daemon}_events"].samples})
    for kind in product["kinds"]:
        if kind not in kinds:
            problems.append(f'{daemon}_events_total{{kind="{kind}"}} missing')
if problems:
    sys.exit("; ".join(problems))
json.dump(dict(daemon=daemon, states=states, kinds=kinds, status_keys=product["statusKeys"],
               known=known is not None), open(sys.argv[2], "w"))
samples = sum(len(f.samples) for f in families.values())
print(f"ok: {daemon}, {len(families)} families, {samples} samples, current state {current[0]}"
      + ("" if known else f" (only the runtime's checks: no package's packaging/checks.json says what {daemon} shows)"))
PY

echo "==> $base/status and /healthz"
curl -fsS -D "$work/status.headers" -o "$work/status.json" "$base/status" || fail "GET $base/status failed"
grep -qi '^content-type: application/json' "$work/status.headers" || fail "/status is not application/json"
state=$(python3 - "$work/status.json" "$work/daemon.json" <<'PY'
import json, sys

try:
    status = json.load(open(sys.argv[1], encoding="utf-8"))
except ValueError as error:
    sys.exit(f"/status is not valid JSON: {error}")
daemon = json.load(open(sys.argv[2]))
keys = {"phase", "state", "counters", "uptimeSeconds", "board", "chip", "events",
        "queueDepth", "droppedCommands", "lostEdges", "traceLosses", "lastTransitions"} | set(daemon["status_keys"])
missing = sorted(keys - status.keys())
if missing:
    sys.exit(f"/status lacks {', '.join(missing)}")
unknown = sorted(set(status["counters"]) - set(daemon["kinds"]))
if unknown:
    sys.exit(f"/status counts {', '.join(unknown)}, which /metrics has no {daemon['daemon']}_events_total kind for")
if status["state"] not in daemon["states"]:
    sys.exit(f"/status says state {status['state']!r}, which is not among /metrics' states {daemon['states']}")
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
python3 - "$work/dom.html" "$state" "$work/daemon.json" "$work/status.json" <<'PY' || fail "the rendered page (above)"
import json, re, sys

dom, state = open(sys.argv[1], encoding="utf-8").read(), sys.argv[2]
daemon, status = json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
name = daemon["daemon"]
if 'data-live="yes"' not in dom:
    sys.exit("the page's script never got an answer from /status (body is not data-live=yes)")
if f"<h1>{name}</h1>" not in dom:
    sys.exit(f"the page's heading is not {name}: {re.findall(r'<h1>([^<]*)</h1>', dom)}")
shown = re.search(r'<div id="state"[^>]*>([^<]*)</div>', dom)
if not shown or shown.group(1) != state:
    sys.exit(f"the page shows state {shown.group(1) if shown else 'nothing'!r}, /status says {state!r}")
# The daemon's own diagram: a node per state it has, none of another machine's.
nodes = re.findall(r'<g class="node(?: current)?" data-state="([^"]+)"', dom)
if sorted(nodes) != sorted(daemon["states"]):
    sys.exit(f"the diagram's states are {nodes}, {name}'s are {daemon['states']}")
current = re.findall(r'<g class="node current" data-state="([^"]+)"', dom)
if current != [state]:
    sys.exit(f"the diagram highlights {current}, expected [{state!r}]")
missing = [counter for counter in status["counters"] if f"<td>{counter}</td>" not in dom]
if missing or not status["counters"]:
    sys.exit(f"the counters table was not drawn (no row for {', '.join(missing) or 'any counter'})")
print(f"ok: the rendered page is {name}'s, its diagram's {len(nodes)} states with {state} highlighted, "
      + f"{len(status['counters'])} counters")
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
# The state is the only line that is one word, a state's name; OCR reads a capital inside a
# word (the turnstile's outOfOrder) as either case, so the letters are what matter.
if state.lower() not in (line.lower() for line in lines):
    sys.exit(f"OCR does not find {state!r} on a line of its own in the screenshot; it reads {lines}")
print(f"ok: the screenshot reads {state!r} as the state")
PY
echo "all status endpoint checks passed"
