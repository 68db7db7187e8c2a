#!/usr/bin/env bash
# Runs an aarch64 program built here (scripts/arm64/swift.sh) under qemu-user, with the trixie
# arm64 root of the SDK as its libraries (glibc, libstdc++, and what it opens at run time:
# SQLite, libxml2, libgpiod 2.x, libmosquitto):
#
#   scripts/arm64/run.sh .build-arm64/aarch64-unknown-linux-gnu/release/turnstiled simulate
#
# A program the tests start is started the same way: binfmt_misc hands every aarch64 program to
# qemu (registered here, see arm64_binfmt in scripts/lib/arm64.sh), and QEMU_LD_PREFIX, which
# its children inherit, names the libraries.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/scripts/lib/arm64.sh"
[ $# -ge 1 ] || { echo "usage: $0 PROGRAM ARGS..." >&2; exit 64; }
[ -d "$ARM64_SYSROOT/usr/lib/aarch64-linux-gnu" ] || { echo "error: no arm64 root in $ARM64_CACHE: run scripts/arm64/sdk.sh" >&2; exit 1; }
arm64_binfmt
export QEMU_LD_PREFIX=$ARM64_SYSROOT
exec "$@"
