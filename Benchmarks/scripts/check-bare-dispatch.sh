#!/usr/bin/env bash
# Checks that a machine with no observer (`BareMachine`) has no observer code in its dispatch:
# in the release CallgrindProbe, each machine's dispatch specialised for `Unobserved` may call
# only the table's closures (indirect calls: guard, exit, action, entry) and, for a row that
# is not a move between two innermost states, the nested path (`takeNested`, then `settle` for
# eventless rows; out of line so a flat machine carries none of it) — no hook, no trace ring, no retain or release, no runtime
# function.
#
#   Benchmarks/scripts/check-bare-dispatch.sh [PATH/TO/CallgrindProbe]
set -euo pipefail
probe=${1:-"$(dirname "$0")/../.build/release/CallgrindProbe"}
[ -x "$probe" ] || { echo "no $probe: swift build -c release --package-path Benchmarks --product CallgrindProbe" >&2; exit 2; }
# Whole symbol names: the optimiser may specialise further (e.g. `...Tg5Tf4ndn_n` once an
# argument is dead), and a name cut short disassembles to nothing, which would pass unchecked.
symbols=$(nm --defined-only "$probe" | awk '{print $3}' | grep -E '^\$s13ControllerFSM15ObservedMachineV8dispatch(y|_2at).*10UnobservedV.*Tg5' | sort -u)
[ -n "$symbols" ] || { echo "no dispatch specialised for Unobserved in $probe" >&2; exit 1; }
status=0
for symbol in $symbols; do
    code=$(objdump -d --no-show-raw-insn --disassemble="$symbol" "$probe" | grep -E '^ +[0-9a-f]+:' || true)
    if [ -z "$code" ]; then
        echo "no instructions found for $symbol: the check would see nothing" >&2
        status=1
        continue
    fi
    calls=$(grep -E '\scall' <<<"$code" || true)
    direct=$(grep -v 'call   \*%' <<<"$calls" | grep -v 'ObservedMachineV10takeNested' | grep -v 'ObservedMachineV6settle' || true)
    echo "$(grep -c . <<<"$calls") calls, all through the table's closures: ${symbol:0:90}…"
    if [ -n "$direct" ]; then
        echo "  but also direct calls (observer or runtime code in a bare dispatch):" >&2
        echo "$direct" >&2
        status=1
    fi
done
exit $status
