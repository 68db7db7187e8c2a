#!/usr/bin/env bash
# SwiftPM for aarch64 Linux: `swift SUBCOMMAND ARGS...` run with the arm64 Swift SDK
# (scripts/arm64/sdk.sh makes it) in its sid root, in this repository, so what it builds is for
# the Pi's processor (Raspberry Pi 3, 4, 5, Zero 2 W with a 64-bit OS: trixie, glibc 2.38 or
# later). Paths in ARGS are the repository's (it is mounted at its own path in the root).
#
#   scripts/arm64/swift.sh build -c release --static-swift-stdlib --product turnstiled \
#       --scratch-path .build-arm64
#   scripts/arm64/swift.sh build --build-tests --scratch-path .build-arm64
#
# Everything built for arm64 goes into a scratch folder of its own (.build-arm64 by convention):
# SwiftPM's .build holds the x86_64 build. Run the results with scripts/arm64/run.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib/arm64.sh
[ $# -ge 1 ] || { echo "usage: $0 build|test|package ARGS..." >&2; exit 64; }
subcommand=$1
shift
command="swift $(printf '%q' "$subcommand")"
case $subcommand in
    build | test | run) command+=" --swift-sdks-path /opt/sdks --swift-sdk $ARM64_SDK_NAME" ;;
esac
for argument; do command+=" $(printf '%q' "$argument")"; done
arm64_in_root "$command"
