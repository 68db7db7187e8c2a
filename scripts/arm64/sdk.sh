#!/usr/bin/env bash
# Makes the aarch64 (arm64) Swift SDK from Debian's packages, or finds it made: a sid amd64 root
# with sid's `swiftlang`, the arm64 `swiftlang` of the same version unpacked in it, a trixie
# arm64 root as the target's sysroot, and a Swift SDK bundle naming them. What is where, and why
# this route: scripts/lib/arm64.sh. Run by scripts/arm64/check.sh (CI's arm64 lane) and by a
# person before scripts/arm64/swift.sh.
#
#   scripts/arm64/sdk.sh            make what is missing; print the compiler it uses
#   scripts/arm64/sdk.sh --fresh    make it all again (sid moved, or a root was damaged)
#
# Kept in $ARM64_CACHE (default /var/cache/controllerfsm-arm64): about 4 GB. From nothing it
# takes about 5 minutes on 2 cores and a fast mirror (the roots, 600 MB of arm64 packages); with
# it made, a second. Needs root (mmdebstrap's root mode, chroot, mounts) and the packages
# scripts/lib/packages.sh declares for the check "arm64" (mmdebstrap, qemu-user-static).
#
# sid moves: whatever `swiftlang` sid has (6.2 or later) is used, and said. The arm64 tree is
# made again whenever the root's compiler is not the version it was unpacked for.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib/packages.sh
. scripts/lib/arm64.sh

fresh=0
case "${1:-}" in
--fresh) fresh=1 ;;
"") ;;
*) echo "usage: $0 [--fresh]" >&2; exit 64 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "error: making the arm64 SDK needs root (mmdebstrap, chroot, mount)" >&2; exit 1; }

packages_ensure arm64
arm64_binfmt

# The mirror this machine's own apt sources name (deb822 or one-line), for both roots.
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | grep -v security | sed -n 1p || true)
[ -n "$mirror" ] || mirror=$(sed -n 's/^deb *\(\[[^]]*\] *\)\{0,1\}\(http[^ ]*\) *[a-z]*  *main.*/\2/p' /etc/apt/sources.list 2>/dev/null | grep -v security | sed -n 1p || true)
[ -n "$mirror" ] || { echo "error: no Debian mirror found in /etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list" >&2; exit 1; }

# The archive's Release files can be older than this machine's clock says they may be (a
# snapshot): they are taken as they are.
no_expiry=(--aptopt='Acquire::Check-Valid-Until "false"')
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# mmdebstrap, quietly: its output kept and shown when it fails (it stops on SIGPIPE when its
# output goes to a pipe nobody reads, so to a file; standard input closed).
run_mmdebstrap() {
    local what=$1
    shift
    if ! mmdebstrap "${no_expiry[@]}" "$@" </dev/null >"$log" 2>&1; then
        echo "error: mmdebstrap failed making $what; its last lines:" >&2
        tail -n 25 "$log" >&2
        exit 1
    fi
}

[ "$fresh" = 0 ] || rm -rf "$ARM64_CACHE"
mkdir -p "$ARM64_CACHE"
started=$SECONDS

# 1. The sid amd64 root: the compiler, and what SwiftPM needs beside it (a C and C++ toolchain
#    for the manifest and the C targets, git for the dependencies); and what the tests start
#    when they run here under qemu (the MQTT tests' broker, scripts/mqtt-broker.sh's tools; mount,
#    which the library-hiding tests run in a mount namespace of their own; Jinja2, Home
#    Assistant's template engine, which the discovery templates' tests render with).
root_packages=(swiftlang g++ git file ca-certificates mosquitto mosquitto-clients openssl iproute2 procps python3 python3-jinja2 mount)
if [ ! -f "$ARM64_ROOT/.made" ]; then
    echo "==> arm64 SDK: a Debian sid amd64 root with swiftlang ($mirror)"
    rm -rf "$ARM64_ROOT"
    run_mmdebstrap "the sid root" --variant=apt --include="$(IFS=,; echo "${root_packages[*]}")" \
        sid "$ARM64_ROOT" "deb $mirror sid main"
    # The Swift packages come from this machine's mirror, as outside.
    for from in https://github.com/ git@github.com: ssh://git@github.com/; do
        chroot "$ARM64_ROOT" git config --system --add "url.$ARM64_PACKAGE_MIRROR/.insteadOf" "$from"
    done
    chroot "$ARM64_ROOT" dpkg --add-architecture arm64
    touch "$ARM64_ROOT/.made"
fi
# A root made before a package joined the list gets it (its compiler stays as it is).
# shellcheck disable=SC2016 # expanded by the root's shell
missing_packages=$(chroot "$ARM64_ROOT" bash -c 'for p; do dpkg-query -W -f="\${Status}\n" "$p" 2>/dev/null | grep -q "ok installed" || echo "$p"; done' - "${root_packages[@]}")
if [ -n "$missing_packages" ]; then
    echo "==> arm64 SDK: into the sid root: $(echo $missing_packages)"
    # shellcheck disable=SC2086 # one word each
    { chroot "$ARM64_ROOT" apt-get -q -o Acquire::Check-Valid-Until=false update \
        && chroot "$ARM64_ROOT" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing_packages; } >"$log" 2>&1 \
        || { echo "error: cannot install $(echo $missing_packages) in the sid root:" >&2; tail -n 20 "$log" >&2; exit 1; }
fi
swift_version=$(chroot "$ARM64_ROOT" dpkg-query -W -f='${Version}' swiftlang)

# 2. The arm64 Swift tree of exactly the root's compiler version (its binary-only modules load
#    only into that compiler).
if [ "$(cat "$ARM64_SWIFT_TREE/.version" 2>/dev/null)" != "$swift_version" ]; then
    echo "==> arm64 SDK: the arm64 swiftlang $swift_version, unpacked"
    rm -rf "$ARM64_SWIFT_TREE" "$ARM64_ROOT/var/cache/arm64-debs"
    mkdir -p "$ARM64_ROOT/var/cache/arm64-debs"
    chroot "$ARM64_ROOT" apt-get -q -o Acquire::Check-Valid-Until=false update >"$log" 2>&1 \
        || { tail -n 20 "$log" >&2; exit 1; }
    chroot "$ARM64_ROOT" bash -c "cd /var/cache/arm64-debs && apt-get -q download swiftlang:arm64=$swift_version libswiftlang:arm64=$swift_version" >"$log" 2>&1 \
        || { echo "error: sid has no arm64 swiftlang $swift_version beside the amd64 one:" >&2; tail -n 20 "$log" >&2; exit 1; }
    for deb in "$ARM64_ROOT"/var/cache/arm64-debs/*.deb; do dpkg-deb -x "$deb" "$ARM64_SWIFT_TREE"; done
    rm -rf "$ARM64_ROOT"/var/cache/arm64-debs/*
    # The test binary links Foundation's shared libraries (the shipped daemons link them
    # statically), and sid's libFoundationXML needs sid's libxml2 (libxml2.so.16; trixie has .so.2):
    # put beside them, where the test binary's RUNPATH finds them.
    chroot "$ARM64_ROOT" bash -c "cd /var/cache/arm64-debs && apt-get -q download libxml2-16:arm64" >"$log" 2>&1 \
        || { echo "error: sid's arm64 libxml2-16 (for Foundation's libFoundationXML.so) cannot be downloaded:" >&2; tail -n 20 "$log" >&2; exit 1; }
    mkdir -p "$ARM64_CACHE/extra"
    for deb in "$ARM64_ROOT"/var/cache/arm64-debs/*.deb; do dpkg-deb -x "$deb" "$ARM64_CACHE/extra"; done
    cp -a "$ARM64_CACHE"/extra/usr/lib/aarch64-linux-gnu/libxml2.so.16* "$ARM64_SWIFT_TREE/usr/libexec/swift/lib/swift/linux/"
    rm -rf "$ARM64_ROOT/var/cache/arm64-debs" "$ARM64_CACHE/extra"
    # Debian's package ships Swift Testing's Foundation overlay as a module without its library;
    # a test target importing Testing and Foundation links it (-l_Testing_Foundation) and uses
    # none of its symbols. An empty archive stands in, where the package left it out only.
    for lib in "$ARM64_SWIFT_TREE/usr/libexec/swift/lib/swift/linux" "$ARM64_ROOT/usr/libexec/swift/lib/swift/linux"; do
        [ -e "$lib/lib_Testing_Foundation.so" ] || [ -e "$lib/lib_Testing_Foundation.a" ] || printf '!<arch>\n' >"$lib/lib_Testing_Foundation.a"
    done
    echo "$swift_version" >"$ARM64_SWIFT_TREE/.version"
fi

# Every library the arm64 Swift runtime's shared libraries need (the test binary loads them) is
# in the tree or the trixie root: when sid moves and one needs something new, said here, not as
# a test binary that cannot start.
if [ -f "$ARM64_SYSROOT/.made" ]; then
    runtime=$ARM64_SWIFT_TREE/usr/libexec/swift/lib/swift/linux
    missing=$(for so in "$runtime"/*.so; do
        aarch64-linux-gnu-objdump -p "$so" 2>/dev/null | awk '$1 == "NEEDED" { print $2 }'
    done | sort -u | while read -r needed; do
        [ -e "$runtime/$needed" ] || [ -e "$ARM64_SYSROOT/usr/lib/aarch64-linux-gnu/$needed" ] || [ -e "$ARM64_SYSROOT/lib/$needed" ] || echo "$needed"
    done)
    [ -z "$missing" ] || { echo "error: the arm64 Swift runtime ($runtime) needs libraries neither it nor the trixie root has: $(echo $missing); add their sid packages in scripts/arm64/sdk.sh, step 2" >&2; exit 1; }
fi

# 3. The target's sysroot: a trixie arm64 root (the Pi's distribution), with the C library and
#    C++ runtime the binaries link, what they open at run time, for the runs under qemu (and
#    libcurl, which Swift's shared FoundationNetworking, in the test binary's reach, links), and
#    dpkg-shlibdeps, which computes an arm64 .deb's Depends from trixie's own symbols files.
#    Its clean state (with udev, as on a Pi) is kept as a tarball first: the .debs are installed
#    into a copy of that.
if [ ! -f "$ARM64_SYSROOT/.made" ]; then
    echo "==> arm64 SDK: a Debian trixie arm64 root (the sysroot; maintainer scripts under qemu)"
    rm -rf "$ARM64_SYSROOT" "$ARM64_CACHE/trixie-arm64-clean.tar"
    # With udev, as a Pi has it: the .debs recommend it, and configuring it under qemu-user took
    # most of the .deb check's 8 minutes when apt installed it there on every run.
    run_mmdebstrap "the clean trixie arm64 root" --architectures=arm64 --variant=apt --include=udev \
        trixie "$ARM64_CACHE/trixie-arm64-clean.tar" "deb $mirror trixie main"
    run_mmdebstrap "the trixie arm64 sysroot" --architectures=arm64 --variant=apt \
        --include=libc6-dev,libstdc++-14-dev,linux-libc-dev,libsqlite3-0,libxml2,libgpiod3,libmosquitto1,libcurl4t64,dpkg-dev \
        trixie "$ARM64_SYSROOT" "deb $mirror trixie main"
    # SwiftPM's static link looks for swiftrt.o in the sysroot's usr/lib/swift_static, not in the
    # SDK's swiftStaticResourcesPath: the Swift resources are linked in where it looks.
    ln -sfn /opt/swift-arm64/usr/libexec/swift/lib/swift "$ARM64_SYSROOT/usr/lib/swift"
    ln -sfn /opt/swift-arm64/usr/libexec/swift/lib/swift_static "$ARM64_SYSROOT/usr/lib/swift_static"
    # qemu-user looks for every path a program opens in the sysroot first (QEMU_LD_PREFIX), so
    # the root's own /dev/ptmx would be opened instead of this machine's; that node looks for its
    # devpts beside it, in the root's empty dev/pts, and a pseudo-terminal cannot be had (the
    # tests that run a daemon on a terminal). Without them, qemu opens the machine's.
    rm -rf "$ARM64_SYSROOT/dev/ptmx" "$ARM64_SYSROOT/dev/pts"
    touch "$ARM64_SYSROOT/.made"
fi

# 4. The Swift SDK bundle.
variant=$ARM64_SDKS/$ARM64_SDK_NAME.artifactbundle/$ARM64_TRIPLE
mkdir -p "$variant"
cat >"$ARM64_SDKS/$ARM64_SDK_NAME.artifactbundle/info.json" <<JSON
{ "schemaVersion": "1.0",
  "artifacts": { "$ARM64_SDK_NAME": { "type": "swiftSDK", "version": "$swift_version",
      "variants": [ { "path": "$ARM64_TRIPLE" } ] } } }
JSON
cat >"$variant/swift-sdk.json" <<JSON
{ "schemaVersion": "4.0",
  "targetTriples": { "$ARM64_TRIPLE": {
      "sdkRootPath": "/opt/sysroot-arm64",
      "swiftResourcesPath": "/opt/swift-arm64/usr/libexec/swift/lib/swift",
      "swiftStaticResourcesPath": "/opt/swift-arm64/usr/libexec/swift/lib/swift_static",
      "toolsetPaths": [ "toolset.json" ] } } }
JSON
cat >"$variant/toolset.json" <<JSON
{ "schemaVersion": "1.0",
  "swiftCompiler": { "extraCLIOptions": [ "-use-ld=lld" ] },
  "linker": { "path": "/usr/libexec/swift/bin/ld.lld" } }
JSON

echo "==> arm64 SDK ready in $((SECONDS - started)) s: $ARM64_SDK_NAME ($ARM64_CACHE), compiler: $(arm64_swift_version)"
