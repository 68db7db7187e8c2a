#!/usr/bin/env bash
# The API reference: DocC (the toolchain's `docc`) over the public symbols of every library this
# package offers (its products of type library, read from `swift package dump-package`), one
# archive each in .build/docs/, failing on any warning: a symbol link that goes nowhere, a
# parameter left undocumented, a documented parameter that is not there.
#
#   scripts/check-docs.sh                         from the debug build in .build (made first
#                                                 when it is not there)
#   scripts/check-docs.sh --scratch-path DIR      from the build already in DIR (the full suite
#                                                 gives it the AddressSanitizer build's)
#
# The symbol graphs are extracted from the build's compiled modules (swift-symbolgraph-extract,
# a second or two each), so the reference costs no build of its own. A link to another module's
# symbol is written in code voice (`GPIOError`), not as a symbol link: each library's archive is
# built alone, as its users see it.
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=.build
case "${1:-}" in
--scratch-path) [ $# -eq 2 ] || { echo "usage: $0 [--scratch-path DIR]" >&2; exit 64; }; scratch=$2 ;;
"") ;;
*) echo "usage: $0 [--scratch-path DIR]" >&2; exit 64 ;;
esac

modules=$(swift package dump-package | python3 -c '
import json, sys
package = json.load(sys.stdin)
print(" ".join(t for p in package["products"] if "library" in p["type"] for t in p["targets"]))')
bin=$(swift build --scratch-path "$scratch" --show-bin-path)
for module in $modules; do
    [ -f "$bin/Modules/$module.swiftmodule" ] && continue
    # Another build folder was built with flags of its own (a sanitizer's): not built over here.
    [ "$scratch" = .build ] || { echo "error: $bin has no compiled $module: build it first" >&2; exit 1; }
    echo "(no compiled $module in $bin: swift build first)"
    swift build >/dev/null
    break
done
# The C modules the Swift ones import: the module maps the build made, and the packages' own.
clang_modules=()
while IFS= read -r map; do clang_modules+=(-Xcc "-fmodule-map-file=$(realpath "$map")"); done < <(
    find "$bin" -maxdepth 2 -name module.modulemap
    find "$scratch/checkouts" Sources -name module.modulemap -path "*include*" 2>/dev/null)

out=.build/docs
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for module in $modules; do
    rm -rf "$work/graphs" && mkdir -p "$work/graphs"
    # The module's own graph and its extensions of other modules' types (MODULE@OTHER).
    if ! swift-symbolgraph-extract -module-name "$module" -I "$bin/Modules" -target "$(basename "$(dirname "$bin")")" \
        -output-dir "$work/graphs" -minimum-access-level public "${clang_modules[@]}" >"$work/log" 2>&1; then
        echo "error: cannot read the symbols of $module from $bin:" >&2
        cat "$work/log" >&2
        status=1
        continue
    fi
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
