# Shared by the host-side HIL scripts (sourced, not run). Paths, logging, timing, root.
# shellcheck shell=bash disable=SC2034   # the paths are for the scripts that source this

HIL_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)   # scripts/hil
PROJECT_DIR=$(cd "$HIL_DIR/../.." && pwd)                 # the work tree
BUILD_HIL=${BUILD_HIL:-$PROJECT_DIR/.build-hil}          # every cache lives here

# The guest's architecture: amd64 (Debian 12's kernel under qemu-system-x86_64, the host's own
# packages) or arm64 (Debian trixie's arm64 kernel under qemu-system-aarch64, machine virt, with
# arm64 packages fetched as .debs through an apt configuration of its own and unpacked: the
# host's apt sources are never changed). run.sh --arch sets it for the scripts it runs.
HIL_ARCH=${HIL_ARCH:-amd64}
case $HIL_ARCH in
    amd64) HIL_ARCH_DIR=$BUILD_HIL ;;                    # where amd64's caches always were
    arm64) HIL_ARCH_DIR=$BUILD_HIL/arm64 ;;
    *) printf 'error: HIL_ARCH=%s: amd64 or arm64\n' "$HIL_ARCH" >&2; exit 2 ;;
esac
export HIL_ARCH
KERNEL_VERSION_FILE=$HIL_ARCH_DIR/kernel-version         # written by prepare.sh
MODULES_DIR=$HIL_ARCH_DIR/modules                        # gpio-sim.ko
VERSIONS_FILE=$HIL_ARCH_DIR/versions                     # what the guest runs (written by
                                                         # prepare.sh): "# ..." lines for the log,
                                                         # HIL_LIBGPIOD_V1= and _V2= for the guest
                                                         # (/hil/versions: what the library says)
LIBGPIOD2_PREFIX=$BUILD_HIL/libgpiod-2.3                 # libgpiod 2.3, shared (amd64)
LIBGPIOD2_SONAME=libgpiod.so.3                           # its file, as the binaries open it
# arm64: what prepare.sh unpacks (each a tree of its own, as dpkg would lay it out under /):
ARM64_KERNEL_ROOT=$HIL_ARCH_DIR/kernel                   # linux-image-VERSION: vmlinuz, modules
ARM64_GUEST_ROOT=$HIL_ARCH_DIR/root                      # trixie's busybox-static, libc6,
                                                         # libstdc++6, libgcc-s1, libsqlite3-0,
                                                         # libgpiod3 (2.x) and its tools (gpiod)
ARM64_V1_ROOT=$HIL_ARCH_DIR/root-v1                      # bookworm's libgpiod2 (1.6) and its tools
ARM64_TOOLS_ROOT=$HIL_ARCH_DIR/tools                     # a trixie amd64 root (mmdebstrap): the
                                                         # arm64 cross gcc and the kernel's kbuild
# The trixie arm64 root scripts/arm64/sdk.sh makes (read only here): when it is there, the VM
# takes the libraries the arm64 binaries run with from it, the root they were linked against.
ARM64_SDK_SYSROOT=${ARM64_SDK_SYSROOT:-${ARM64_CACHE:-/var/cache/controllerfsm-arm64}/sid/opt/sysroot-arm64}

hil_log() { printf '==> %s\n' "$*" >&2; }
hil_die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# hil_usage SCRIPT STATUS: print SCRIPT's header comment (after the #! line), exit STATUS.
hil_usage() {
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$1" >&2
    exit "$2"
}

# Run as root: directly when we are root, through sudo otherwise.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Seconds since the epoch, with milliseconds (for step timings).
now_s() { date +%s.%N | cut -c1-14; }

# Run a named step and remember how long it took; hil_timings prints the table.
# A failing step ends the script (set -e); do not call hil_step in an || or if context, which
# would switch set -e off inside the step.
HIL_TIMINGS=()
hil_step() {
    local name=$1; shift
    local t0 t1 dt
    t0=$(now_s)
    hil_log "$name"
    "$@"
    t1=$(now_s)
    dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    HIL_TIMINGS+=("$(printf '%7ss  %s' "$dt" "$name")")
}
hil_timings() {
    local title=$1 line
    printf -- '--- %s timings\n' "$title" >&2
    for line in "${HIL_TIMINGS[@]}"; do printf '%s\n' "$line" >&2; done
}

# The kernel version prepare.sh chose (e.g. 6.1.0-41-amd64, 6.12.57+deb13-arm64).
hil_kernel_version() {
    [ -s "$KERNEL_VERSION_FILE" ] || hil_die "no $KERNEL_VERSION_FILE; run scripts/hil/prepare.sh first (HIL_ARCH=$HIL_ARCH)"
    cat "$KERNEL_VERSION_FILE"
}

# The kernel image to boot, and the tree its modules are under (lib/modules/VERSION below it).
hil_kernel_image() {
    case $HIL_ARCH in
        amd64) echo "/boot/vmlinuz-$1" ;;
        arm64) echo "$ARM64_KERNEL_ROOT/boot/vmlinuz-$1" ;;
    esac
}
hil_modules_base() {
    case $HIL_ARCH in
        amd64) echo / ;;
        arm64) echo "$ARM64_KERNEL_ROOT" ;;
    esac
}

# The guest's Debian multiarch triplet (its library directory: /usr/lib/TRIPLET).
hil_multiarch() {
    case $HIL_ARCH in
        amd64) gcc -print-multiarch ;;
        arm64) echo aarch64-linux-gnu ;;
    esac
}

# The root the arm64 guest's libraries come from: the SDK's sysroot when it holds them all (the
# binaries were linked against it), else the trixie root prepare.sh unpacked.
hil_arm64_lib_root() {
    local lib
    for lib in libc.so.6 libstdc++.so.6 libgcc_s.so.1 libsqlite3.so.0 libgpiod.so.3; do
        [ -e "$ARM64_SDK_SYSROOT/usr/lib/aarch64-linux-gnu/$lib" ] || { echo "$ARM64_GUEST_ROOT"; return; }
    done
    echo "$ARM64_SDK_SYSROOT"
}

# The strip that reads the guest's binaries.
hil_strip() {
    case $HIL_ARCH in
        amd64) strip "$@" ;;
        arm64) aarch64-linux-gnu-strip "$@" ;;
    esac
}
