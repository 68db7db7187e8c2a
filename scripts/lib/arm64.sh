# shellcheck shell=bash
# The aarch64 (arm64) toolchain made here from Debian's packages, and the way every script runs
# in it. Sourced, not run: by scripts/arm64/sdk.sh (which makes it), scripts/arm64/check.sh (the
# CI lane) and scripts/arm64/swift.sh (a person's `swift build` for the Pi).
#
# Why this shape. The Swift toolchain on PATH (6.3.1) has the standard library for x86_64 only,
# and Swift's binary-only modules (Foundation, FoundationEssentials, Dispatch: no
# .swiftinterface) load only into the very compiler build that made them. Debian sid packages
# `swiftlang` for amd64 and arm64 from one build, so sid's amd64 compiler, in a root of its own,
# compiles for aarch64 against sid's arm64 Swift modules. What the program links besides Swift
# (glibc, libstdc++) comes from a trixie arm64 root, the Pi's own distribution (Raspberry Pi OS
# trixie), so the binaries need what trixie has: glibc 2.38 or later.
#
# What is where, under $ARM64_CACHE (default /var/cache/controllerfsm-arm64; kept between runs
# on one machine, made from nothing on a fresh one):
#   sid/                          a Debian sid amd64 root holding `swiftlang` (the compiler), g++
#                                 and git; SwiftPM runs here, through chroot
#   sid/opt/swift-arm64/          the arm64 `swiftlang` and `libswiftlang` of the same version,
#                                 unpacked (the target's Swift modules and runtime)
#   sid/opt/sysroot-arm64/        a Debian trixie arm64 root (mmdebstrap; its maintainer scripts
#                                 run under qemu-user): the C library and headers the binaries
#                                 link, and the libraries they open at run time (SQLite, libxml2,
#                                 libgpiod 2.x, libmosquitto) for the runs under qemu
#   sid/opt/sdks/ARM64_SDK_NAME.artifactbundle
#                                 the Swift SDK (info.json, swift-sdk.json, toolset.json)
#   trixie-arm64-clean.tar        the same trixie root before anything of the project went in:
#                                 the .debs are installed into a fresh copy of it
# Nothing here changes the system's apt sources: both roots are made by mmdebstrap with the
# mirror this machine's own sources name, and their own apt state.
#
# Functions:
#   arm64_paths                   sets ARM64_ROOT, ARM64_SYSROOT, ARM64_SWIFT_TREE, ARM64_SDKS
#   arm64_binfmt                  registers qemu-aarch64 with the kernel's binfmt_misc (F: the
#                                 interpreter opened now, so it runs aarch64 programs inside the
#                                 roots too), mounting binfmt_misc when it is not; a test that
#                                 starts a built binary then starts it under qemu
#   arm64_in_root 'COMMAND'       runs COMMAND (a shell command line) in the sid root, in the
#                                 repository (mounted at its own path), with /proc, /dev, /sys and
#                                 the Swift package mirror mounted in a mount namespace of its
#                                 own (nothing is left mounted when it ends); the environment is
#                                 empty but for PATH, HOME, QEMU_LD_PREFIX and ARM64_ENV's
#                                 NAME=VALUE words; the folders ARM64_BINDS names are mounted
#                                 at their own paths too
#   arm64_swift_version           the sid compiler's version line
#   arm64_foreign BINARY          BINARY is an aarch64 program and this machine is not

ARM64_CACHE=${ARM64_CACHE:-/var/cache/controllerfsm-arm64}
ARM64_ENV=()
ARM64_BINDS=()
ARM64_SDK_NAME=debian-sid-aarch64
ARM64_TRIPLE=aarch64-unknown-linux-gnu
# Where Swift package dependencies come from: git's insteadOf rules of this machine point
# github.com at a local mirror; the root gets the same rules and the mirror mounted read-only.
ARM64_PACKAGE_MIRROR=${ARM64_PACKAGE_MIRROR:-/opt/swift-packages}

arm64_paths() {
    ARM64_ROOT=$ARM64_CACHE/sid
    ARM64_SYSROOT=$ARM64_ROOT/opt/sysroot-arm64
    ARM64_SWIFT_TREE=$ARM64_ROOT/opt/swift-arm64
    ARM64_SDKS=$ARM64_ROOT/opt/sdks
}
arm64_paths

arm64_binfmt() {
    local conf=/usr/lib/binfmt.d/qemu-aarch64.conf entry=/proc/sys/fs/binfmt_misc/qemu-aarch64
    [ -f "$conf" ] || { echo "error: $conf is missing (package qemu-user-static)" >&2; return 1; }
    if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
        mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null || {
            echo "error: binfmt_misc cannot be mounted here (mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc), so a test that starts an aarch64 program cannot start it" >&2
            return 1
        }
    fi
    # An entry without F (registered by binfmt-support, say) does not work in a chroot: replaced.
    if [ -e "$entry" ] && ! grep -q '^flags:.*F' "$entry"; then echo -1 >"$entry"; fi
    [ -e "$entry" ] || sed -n '/^:/p' "$conf" >/proc/sys/fs/binfmt_misc/register
    grep -q '^enabled' "$entry" || { echo "error: $entry is not enabled" >&2; return 1; }
}

# The repository's top folder (this file is in scripts/lib/).
ARM64_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

arm64_in_root() {
    [ $# -eq 1 ] || { echo "usage: arm64_in_root 'COMMAND LINE'" >&2; return 64; }
    [ -x "$ARM64_ROOT/usr/libexec/swift/bin/swift" ] || { echo "error: no arm64 SDK in $ARM64_CACHE: run scripts/arm64/sdk.sh" >&2; return 1; }
    local root=$ARM64_ROOT repo=$ARM64_REPO mirror=$ARM64_PACKAGE_MIRROR
    mkdir -p "$root$repo" "$root$mirror"
    # shellcheck disable=SC2016 # expanded by the inner shell
    unshare --mount --propagation private bash -c '
        set -e
        root=$1 repo=$2 mirror=$3 command=$4 binds=$5
        shift 5
        # The root made a mount point of its own: a test that hides a library with
        # `unshare --mount` (which makes / private) needs / to be one inside the chroot.
        mount --bind "$root" "$root"
        mount -t proc proc "$root/proc"
        mount --rbind /dev "$root/dev"
        mount -t sysfs sys "$root/sys"
        mount -t tmpfs tmpfs "$root/tmp"
        mount --bind "$repo" "$root$repo"
        for bound in "${@:1:$binds}"; do
            mkdir -p "$root$bound"
            mount --bind "$bound" "$root$bound"
        done
        shift "$binds"
        if [ -d "$mirror" ]; then
            mount --bind "$mirror" "$root$mirror"
            mount -o remount,bind,ro "$root$mirror"
        fi
        exec chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
            TERM="${TERM:-dumb}" QEMU_LD_PREFIX=/opt/sysroot-arm64 "$@" /bin/bash -c "cd \"$repo\" && $command"
    ' arm64_in_root "$root" "$repo" "$mirror" "$1" "${#ARM64_BINDS[@]}" "${ARM64_BINDS[@]}" "${ARM64_ENV[@]}"
}

arm64_swift_version() { arm64_in_root 'swift --version 2>&1 | sed -n 1p'; }

# arm64_foreign BINARY: BINARY is an aarch64 program and this machine is not one, so it is read
# with the cross binutils, and what is preloaded into it is built for it. A chart controller's
# command (scripts/lib/chart-command.sh) is a script, which runs this machine's chartd.
arm64_foreign() {
    readelf -h "$1" 2>/dev/null | grep 'Machine: *AArch64' >/dev/null && [ "$(uname -m)" != aarch64 ]
}
