#!/usr/bin/env bash
# The release build users ship (-c release --static-swift-stdlib), in .build, shared by the
# .deb (scripts/package-deb.sh), the loop allocation check and the HIL, so CI compiles it once.
# One binary serves libgpiod 1.6 and 2.x: it opens whichever is installed at run time, so the
# build needs no libgpiod at all.
#
# Built for size, as firmware is (a Pi Zero 2 W, a CM4 with 8 GB of eMMC), and checked at most
# 25 MB stripped (scripts/size-check.sh):
#   -Osize                  the event path is a few kilobytes; the rest (HTTP, the command line,
#                           the store) is code that runs rarely. The binary's event loop is checked
#                           allocation-free as built here (scripts/check-loop-allocations.sh, HIL).
#   --no-export-dynamic     the static Swift runtime's link arguments export every symbol of the
#                           program (24,000: 2.3 MB of dynamic symbol table) for a dlopen'ed
#                           plugin that would look them up; a daemon loads none.
#   --icf=safe              the linker folds identical functions whose address nothing takes.
#   -function-sections      each Swift function in a section of its own, so the linker's
#                           --gc-sections (SwiftPM's) drops every function nothing calls; without
#                           it a source file's code is kept whole once one of its functions is
#                           used (lld --why-live showed a daemon carrying `explore`, which only
#                           chartd calls). 0.72 MB less of turnstiled. SwiftPM does not compile
#                           again what it compiled before when only flags like these change:
#                           after changing them, remove .build/*/release first.
#   lld, -z pack-relative-relocs
#                           a position-independent executable (ASLR) carries a relocation per
#                           pointer in its data: 1.6 MB of .rela.dyn with gold. lld packs them
#                           (DT_RELR: a few kilobytes), which glibc 2.36 and later read (Debian 12,
#                           Raspberry Pi OS bookworm, trixie; dpkg-shlibdeps then asks for
#                           libc6 >= 2.36). The toolchain ships lld.
#
# Every package's release build goes into this package's .build, so the runtime and its
# dependencies are compiled once for all the daemons: barrierd's build (Examples/ParkingBarrier,
# a package depending on this one) then compiles only the barrier's own targets. SwiftPM caches
# the plan of a build folder per root package; sharing one takes --disable-build-manifest-caching
# (without it, the second package's build would plan nothing of its own).
#
#   scripts/release-build.sh PRODUCT...                       products of this package
#   scripts/release-build.sh --package-path DIR PRODUCT...    products of the package in DIR
#                                                             (e.g. Examples/ParkingBarrier's
#                                                             barrierd)
#   scripts/release-build.sh --show-bin-path                  where they all are
#   scripts/release-build.sh --arch arm64 ...                 the same for aarch64 Linux (the
#                                                             Pi), in .build-arm64, with the
#                                                             Swift SDK scripts/arm64/sdk.sh
#                                                             makes (scripts/arm64/swift.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH=$PWD/.build
swift=(swift)
if [ "${1:-}" = --arch ]; then
    [ $# -ge 2 ] || { echo "usage: $0 [--arch amd64|arm64] ..." >&2; exit 64; }
    case $2 in
        arm64) SCRATCH=$PWD/.build-arm64; swift=(scripts/arm64/swift.sh) ;;
        amd64 | "$(uname -m)") ;;
        *) echo "error: --arch $2: amd64 (this machine's) or arm64" >&2; exit 64 ;;
    esac
    shift 2
fi
if [ "${1:-}" = --show-bin-path ]; then
    "${swift[@]}" build -c release --static-swift-stdlib --scratch-path "$SCRATCH" --show-bin-path
    exit
fi
PACKAGE_PATH=.
if [ "${1:-}" = --package-path ]; then
    [ $# -ge 2 ] || { echo "usage: $0 [--package-path DIR] PRODUCT..." >&2; exit 64; }
    PACKAGE_PATH=$2
    shift 2
fi
[ $# -gt 0 ] || { echo "usage: $0 [--package-path DIR] PRODUCT..." >&2; exit 64; }
[ -f "$PACKAGE_PATH/Package.swift" ] || { echo "error: $PACKAGE_PATH/Package.swift not found (--package-path)" >&2; exit 64; }

for product in "$@"; do
    "${swift[@]}" build --package-path "$PACKAGE_PATH" --scratch-path "$SCRATCH" --disable-build-manifest-caching \
        -c release --static-swift-stdlib --product "$product" \
        -Xswiftc -Osize -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs \
        -Xlinker --no-export-dynamic -Xlinker --icf=safe -Xswiftc -Xfrontend -Xswiftc -function-sections
done
