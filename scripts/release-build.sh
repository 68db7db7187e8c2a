#!/usr/bin/env bash
# The release build users ship (-c release --static-swift-stdlib), in .build, shared by the
# .deb (scripts/package-deb.sh), the loop allocation check and both HIL binaries, so CI
# compiles it once.
#
#   scripts/release-build.sh PRODUCT...                       against the system's libgpiod
#   LIBGPIOD_PREFIX=DIR scripts/release-build.sh PRODUCT...   against the libgpiod in DIR
#                                                             (its lib/pkgconfig/libgpiod.pc)
#   scripts/release-build.sh --package-path DIR PRODUCT...    products of the package in DIR
#                                                             (e.g. Examples/ParkingBarrier's
#                                                             barrierd), in DIR/.build
#
# Switching libgpiod (1.6 from apt, 2.3 for the HIL's v2 binaries) recompiles only the modules
# that import CGpiod — once clang's cached CGpiod module is gone: its cache key leaves out the
# header search path, so a module built from the other libgpiod's gpiod.h would be taken
# as it is and the link would fail on the other API's symbols. It is rebuilt in a second.
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

if [ -n "${LIBGPIOD_PREFIX:-}" ]; then
    [ -f "$LIBGPIOD_PREFIX/lib/pkgconfig/libgpiod.pc" ] ||
        { echo "error: $LIBGPIOD_PREFIX/lib/pkgconfig/libgpiod.pc not found (scripts/hil/prepare.sh builds it)" >&2; exit 1; }
    export PKG_CONFIG_PATH=$LIBGPIOD_PREFIX/lib/pkgconfig
fi
find "$PACKAGE_PATH"/.build/*/release/ModuleCache -name 'CGpiod-*.pcm' -delete 2>/dev/null || true
for product in "$@"; do
    swift build --package-path "$PACKAGE_PATH" -c release --static-swift-stdlib --product "$product"
done
