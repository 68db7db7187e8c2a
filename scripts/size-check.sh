#!/usr/bin/env bash
# The shipped binary's size, stripped as the .deb ships it, against a ceiling; and what it is made
# of, so a change that makes it grow says where:
#
#   scripts/size-check.sh BINARY [MAX_MB]        (MAX_MB: 25 unless SIZE_LIMIT_MB says otherwise)
#
# Prints `ls -l` and `size` of the stripped copy, then the largest contributors: the symbol
# table of the unstripped binary (`nm --print-size`), each symbol's bytes summed by where it comes
# from — a Swift module (read from the mangled name), or, for C and C++, the symbol itself (ICU's
# data file, for example, is one symbol `icudt*_dat`). Fails above the ceiling.
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: $0 BINARY [MAX_MB]" >&2; exit 64; }
binary=$(realpath -m "$1")
limit_mb=${2:-${SIZE_LIMIT_MB:-25}}
[ -f "$binary" ] || { echo "error: $binary not found (build it first: scripts/release-build.sh)" >&2; exit 66; }
# An aarch64 binary built here (scripts/release-build.sh --arch arm64) is read with the cross
# binutils (binutils-aarch64-linux-gnu): Debian's own read only this machine's architecture.
tools=""
. "$(dirname "$0")/lib/arm64.sh"
if arm64_foreign "$binary"; then tools=aarch64-linux-gnu-; fi
nm=${tools}nm strip=${tools}strip size=${tools}size
command -v "$nm" >/dev/null && command -v "$strip" >/dev/null || { echo "error: $nm and $strip (binutils${tools:+-aarch64-linux-gnu}) are needed" >&2; exit 69; }
cd "$(dirname "$0")/.."
# controller-checks sums the symbols: beside the binary (the release build), else the debug build's.
. scripts/lib/controller-checks.sh
find_controller_checks "$binary"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stripped="$work/$(basename "$binary")"
"$strip" -o "$stripped" "$binary"
bytes=$(stat -c %s "$stripped")
limit=$((limit_mb * 1000 * 1000))

echo "--- $(basename "$binary") ($(readelf -h "$binary" | sed -n 's/^ *Machine: *//p')), stripped (strip -o), as the .deb ships it:"
ls -l "$stripped" | awk '{ print "    " $5 " bytes" }'
"$size" "$stripped" | sed 's/^/    /'

echo "--- its largest sections (size -A):"
"$size" -A "$stripped" | awk 'NR > 2 && $1 != "Total" && $2 > 0 { printf "    %8.2f MB  %s\n", $2 / 1e6, $1 }' | sort -rn | sed -n 1,6p

echo "--- largest contributors (symbol bytes in $binary, by Swift module or C/C++ symbol):"
"$nm" --print-size --size-sort --radix=d "$binary" 2>/dev/null | "$controller_checks" symbol-sizes

if [ "$bytes" -gt "$limit" ]; then
    echo "error: $(basename "$binary") is $bytes bytes stripped, above the ceiling of $limit_mb MB ($limit bytes): the contributors above say what grew" >&2
    exit 1
fi
echo "    $bytes bytes stripped: within the ceiling of $limit_mb MB"
