#!/usr/bin/env bash
# The HIL run: prepare (cached) -> initramfs -> boot the VM -> verdict (exit status).
#
# Usage: scripts/hil/run.sh [--timeout S] [--only PATTERN] [--bin NAME=PATH]...
#                           [--file DEST=PATH]... [--prebuilt] [--interactive]
#   --timeout S       wall clock for the VM (boot.sh's TIMEOUT_S), default 900
#   --only PATTERN    run only the guest scenarios whose file name contains PATTERN
#   --bin NAME=PATH   add a program to the VM as /hil/bin/NAME (see make-initramfs.sh)
#   --file DEST=PATH  add a file to the VM as /DEST (e.g. hil/boards/x.toml=boards/x.toml)
#   --prebuilt        take the release binaries as they are (scripts/test.sh has just built
#                     them), without asking SwiftPM whether they are up to date
#   --interactive     shell on the serial console after the suite (debugging)
#
# Scenarios are the files scripts/hil/guest/scenarios/*.sh; adding one is adding a file.
# Project binaries built for the VM go into PROJECT_BINS below (or come in with --bin).
# Outputs: .build-hil/initramfs.cpio.gz and the console log .build-hil/logs/hil-<time>.log
# (.build-hil/logs/latest.log points at the newest).
set -euo pipefail
# shellcheck source=scripts/hil/common.sh
. "$(dirname "$0")/common.sh"

TIMEOUT_S=900                    # the suite with the daemon scenarios takes about half of it under TCG
ONLY=""
INTERACTIVE=()
PREBUILT=0
PROJECT_BINS=()                  # NAME=PATH pairs for make-initramfs.sh --bin
PROJECT_FILES=()                 # DEST=PATH pairs for make-initramfs.sh --file

usage() { hil_usage "$0" "${1:-2}"; }
while [ $# -gt 0 ]; do
    case $1 in
        --timeout) [ $# -ge 2 ] || usage; TIMEOUT_S=$2; shift 2 ;;
        --only) [ $# -ge 2 ] || usage; ONLY=$2; shift 2 ;;
        --bin) [ $# -ge 2 ] || usage; PROJECT_BINS+=("$2"); shift 2 ;;
        --file) [ $# -ge 2 ] || usage; PROJECT_FILES+=("$2"); shift 2 ;;
        --prebuilt) PREBUILT=1; shift ;;
        --interactive) INTERACTIVE=(--interactive); shift ;;
        -h|--help) usage 0 ;;
        *) usage ;;
    esac
done

INITRAMFS=$BUILD_HIL/initramfs.cpio.gz
LOG=$BUILD_HIL/logs/hil-$(date +%Y%m%d-%H%M%S).log

# The project's programs for the VM, built once as users ship them (scripts/release-build.sh:
# release, Swift's standard library linked in, in .build), and the same binaries run on both
# libgpiod generations: the VM holds apt's libgpiod.so.2 (1.6) and prepare.sh's libgpiod.so.3
# (2.3), and the guest's /hil/bin/v1/NAME and /hil/bin/v2/NAME run /hil/bin/NAME with
# CONTROLLERFSM_LIBGPIOD=1 or 2 (suite.sh makes them). A stripped copy goes into the VM, and its
# sha256 into the log. Plus the allocation counter the load scenario preloads.
# The controllers beside the turnstile come from their own packages (Examples/*): each one with a
# packaging/hil/ takes part, as its packaging/product.conf names its daemon (PRODUCT), built the
# same way into the same .build. What the package brings to the VM, by convention:
#   boards/hil-gpio-sim.toml      -> /hil/boards/PRODUCT.toml (its board on the gpio-sim chip)
#   packaging/hil/*.sh            -> /hil/guest/ (its helpers, which its scenarios source)
#   packaging/hil/scenarios/*.sh  -> /hil/guest/scenarios/ (run with the rest, by name)
# so a third controller's package joins the harness by holding those files; nothing here names it.
HIL_PRODUCTS=(turnstiled gpio-contract)
EXAMPLE_PACKAGES=()              # "PACKAGE_DIR PRODUCT", relative to the work tree
for conf in "$PROJECT_DIR"/Examples/*/packaging/product.conf; do
    [ -e "$conf" ] || continue
    package=${conf%/packaging/product.conf}
    [ -d "$package/packaging/hil" ] || continue
    # shellcheck disable=SC1090
    product=$(. "$conf" && echo "${PRODUCT:?}") || hil_die "$conf does not set PRODUCT"
    [ -f "$package/boards/hil-gpio-sim.toml" ] \
        || hil_die "$package has packaging/hil/ but no boards/hil-gpio-sim.toml, the board its scenarios run on"
    EXAMPLE_PACKAGES+=("${package#"$PROJECT_DIR"/} $product")
done

stage_bins() {   # stage_bins BIN_DIR PRODUCT...
    local dir=$1 product
    shift
    mkdir -p "$BUILD_HIL/bin"
    for product in "$@"; do
        [ -x "$dir/$product" ] || hil_die "$dir/$product is not built (scripts/release-build.sh; a product of a package under Examples/ with --package-path)"
        strip -o "$BUILD_HIL/bin/$product" "$dir/$product"
        if ldd "$BUILD_HIL/bin/$product" | grep libgpiod >/dev/null; then
            hil_die "$product links libgpiod: it must open it at run time, to serve both generations"
        fi
        hil_log "$product: sha256 $(sha256sum "$BUILD_HIL/bin/$product" | cut -d' ' -f1) (one binary for libgpiod 1.6 and 2.3)"
        PROJECT_BINS+=("$product=$BUILD_HIL/bin/$product")
    done
}

build_project_bins() {
    local bin_dir multiarch
    # Every package's release build is in the root's .build (scripts/release-build.sh).
    bin_dir=$("$PROJECT_DIR/scripts/release-build.sh" --show-bin-path)
    if [ "$PREBUILT" = 0 ]; then
        "$PROJECT_DIR/scripts/release-build.sh" "${HIL_PRODUCTS[@]}"
    fi
    stage_bins "$bin_dir" "${HIL_PRODUCTS[@]}"
    local example package product file
    for example in "${EXAMPLE_PACKAGES[@]}"; do
        read -r package product <<<"$example"
        if [ "$PREBUILT" = 0 ]; then
            hil_step "$product" "$PROJECT_DIR/scripts/release-build.sh" --package-path "$package" "$product"
        fi
        stage_bins "$bin_dir" "$product"
        PROJECT_FILES+=("hil/boards/$product.toml=$PROJECT_DIR/$package/boards/hil-gpio-sim.toml")
        for file in "$PROJECT_DIR/$package"/packaging/hil/*.sh; do
            [ -e "$file" ] && PROJECT_FILES+=("hil/guest/$(basename "$file")=$file")
        done
        for file in "$PROJECT_DIR/$package"/packaging/hil/scenarios/*.sh; do
            [ -e "$file" ] && PROJECT_FILES+=("hil/guest/scenarios/$(basename "$file")=$file")
        done
    done
    # Both generations where the guest's dynamic loader looks: the multiarch library directory.
    multiarch=$(gcc -print-multiarch)
    local v1_library
    v1_library=$(ldconfig -p | awk '$1 == "libgpiod.so.2" && $NF ~ /^\// && first == "" { first = $NF } END { print first }')
    [ -n "$v1_library" ] || hil_die "apt's libgpiod 1.6 (libgpiod.so.2) is not installed (package libgpiod2)"
    PROJECT_FILES+=("usr/lib/$multiarch/libgpiod.so.2=$v1_library")
    PROJECT_FILES+=("usr/lib/$multiarch/$LIBGPIOD2_SONAME=$LIBGPIOD2_PREFIX/lib/$LIBGPIOD2_SONAME")
    # SQLite too: the daemons open it at run time for their count store (the .deb depends on
    # libsqlite3-0; the guest is a bare kernel and busybox).
    local sqlite_library
    sqlite_library=$(ldconfig -p | awk '$1 == "libsqlite3.so.0" && $NF ~ /^\// && first == "" { first = $NF } END { print first }')
    [ -n "$sqlite_library" ] || hil_die "SQLite's library (libsqlite3.so.0) is not installed (package libsqlite3-0)"
    PROJECT_FILES+=("usr/lib/$multiarch/libsqlite3.so.0=$sqlite_library")
    gcc -shared -fPIC -O2 -o "$BUILD_HIL/libmalloccount.so" \
        -I "$PROJECT_DIR/AllocationTests/Sources/CMallocCounter/include" "$PROJECT_DIR/AllocationTests/Sources/CMallocCounter/MallocCounter.c"
    PROJECT_FILES+=("hil/lib/libmalloccount.so=$BUILD_HIL/libmalloccount.so")
    PROJECT_FILES+=("hil/boards/hil-gpio-sim.toml=$PROJECT_DIR/boards/hil-gpio-sim.toml")
}

make_initramfs() {
    local args=() b
    for b in "${PROJECT_BINS[@]}"; do args+=(--bin "$b"); done
    for b in "${PROJECT_FILES[@]}"; do args+=(--file "$b"); done
    "$HIL_DIR/make-initramfs.sh" "$INITRAMFS" "${args[@]}"
}

boot() {
    local append=()
    [ -z "$ONLY" ] || append=(--append "hil.only=$ONLY")
    mkdir -p "$(dirname "$LOG")"
    ln -sfn "$(basename "$LOG")" "$BUILD_HIL/logs/latest.log"
    # Only boot.sh (a script with its own set -e) sits in the || context.
    "$HIL_DIR/boot.sh" "$INITRAMFS" "$LOG" "$TIMEOUT_S" "${append[@]}" "${INTERACTIVE[@]}" \
        || verdict=$?
}

verdict=0
trap 'hil_timings run' EXIT      # also when a step fails and set -e ends the run
hil_step prepare "$HIL_DIR/prepare.sh"
hil_step "project binaries" build_project_bins
hil_step initramfs make_initramfs
hil_step "boot + suite" boot
exit "$verdict"
