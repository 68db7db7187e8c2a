# Shared by the host-side HIL scripts (sourced, not run). Paths, logging, timing, root.
# shellcheck shell=bash disable=SC2034   # the paths are for the scripts that source this

HIL_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)   # scripts/hil
PROJECT_DIR=$(cd "$HIL_DIR/../.." && pwd)                 # the work tree
BUILD_HIL=${BUILD_HIL:-$PROJECT_DIR/.build-hil}          # every cache lives here
KERNEL_VERSION_FILE=$BUILD_HIL/kernel-version            # written by prepare.sh
MODULES_DIR=$BUILD_HIL/modules                           # gpio-sim.ko
LIBGPIOD2_PREFIX=$BUILD_HIL/libgpiod-2.3                 # libgpiod 2.3, shared
LIBGPIOD2_SONAME=libgpiod.so.3                           # its file, as the binaries open it

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

# The kernel version prepare.sh chose (e.g. 6.1.0-41-amd64).
hil_kernel_version() {
    [ -s "$KERNEL_VERSION_FILE" ] || hil_die "no $KERNEL_VERSION_FILE; run scripts/hil/prepare.sh first"
    cat "$KERNEL_VERSION_FILE"
}
