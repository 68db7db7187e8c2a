#!/usr/bin/env bash
# The release build users ship (-c release --static-swift-stdlib), in .build, shared by the
# .deb (scripts/package-deb.sh), the loop allocation check and the HIL, so CI compiles it once.
# One binary serves libgpiod 1.6 and 2.x: it opens whichever is installed at run time, so the
# build needs no libgpiod at all.
#
#   scripts/release-build.sh PRODUCT...                       products of this package
#   scripts/release-build.sh --package-path DIR PRODUCT...    products of the package in DIR
#                                                             (e.g. Examples/ParkingBarrier's
#                                                             barrierd), in DIR/.build
set -euo pipefail
cd "$(dirname "$0")/.."
PACKAGE_PATH=.
if [ "${1:-}" = --package-path ]; then
    [ $# -ge 2 ] || { echo "usage: $0 [--package-path DIR] PRODUCT..." >&2; exit 64; }
    PACKAGE_PATH=$2
    shift 2
fi
[ $# -gt 0 ] || { echo "usage: $0 [--package-path DIR] PRODUCT..." >&2; exit 64; }
[ -f "$PACKAGE_PATH/Package.swift" ] || { echo "error: $PACKAGE_PATH/Package.swift not found (--package-path)" >&2; exit 64; }

for product in "$@"; do
    swift build --package-path "$PACKAGE_PATH" -c release --static-swift-stdlib --product "$product"
done
