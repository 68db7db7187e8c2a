#!/usr/bin/env bash
# The API reference: DocC (the toolchain's `docc`) over the public symbols of every library this
# package offers (its products of type library, read from `swift package dump-package`), one
# archive each in .build/docs/, failing on any warning: a symbol link that goes nowhere, a
# parameter left undocumented, a documented parameter that is not there.
#
#   scripts/check-docs.sh                        symbol graphs from `swift package
#                                                dump-symbol-graph` (the debug build)
#   scripts/check-docs.sh --symbol-graphs DIR    symbol graphs a build already wrote
#                                                (scripts/sanitize.sh's, in the full suite)
#
# A link to another module's symbol is written in code voice (`GPIOError`), not as a symbol link:
# each library's archive is built alone, as its users see it.
set -euo pipefail
cd "$(dirname "$0")/.."

graphs=""
case "${1:-}" in
--symbol-graphs) [ $# -eq 2 ] || { echo "usage: $0 [--symbol-graphs DIR]" >&2; exit 64; }; graphs=$2 ;;
"") ;;
*) echo "usage: $0 [--symbol-graphs DIR]" >&2; exit 64 ;;
esac
if [ -z "$graphs" ]; then
    swift package dump-symbol-graph --minimum-access-level public >"${TMPDIR:-/tmp}/dump-symbol-graph.log" 2>&1 \
        || { cat "${TMPDIR:-/tmp}/dump-symbol-graph.log" >&2; exit 1; }
    graphs=$(swift build --show-bin-path)/../symbolgraph
fi
[ -d "$graphs" ] || { echo "error: no symbol graphs in $graphs" >&2; exit 1; }

modules=$(swift package dump-package | python3 -c '
import json, sys
package = json.load(sys.stdin)
print(" ".join(t for p in package["products"] if "library" in p["type"] for t in p["targets"]))')
out=.build/docs
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for module in $modules; do
    rm -rf "$work/graphs" && mkdir -p "$work/graphs"
    # The module's own graph and its extensions of other modules' types (MODULE@OTHER).
    cp "$graphs/$module.symbols.json" "$work/graphs/" 2>/dev/null \
        || { echo "error: $graphs has no symbol graph of $module (was it built?)" >&2; status=1; continue; }
    cp "$graphs/$module"@*.symbols.json "$work/graphs/" 2>/dev/null || true
    if docc convert --additional-symbol-graph-dir "$work/graphs" --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.controllerfsm.$module" --output-path "$out/$module.doccarchive" \
        --warnings-as-errors >"$work/log" 2>&1; then
        echo "docs: $module"
    else
        status=1
        grep -E "warning|error" "$work/log" | sed "s|^|$module: |" >&2 || tail -20 "$work/log" >&2
    fi
done
[ "$status" = 0 ] && echo "docs: every library's reference builds without a warning ($out/)"
exit $status
