#!/usr/bin/env bash
# The HIL run: prepare (cached) -> initramfs -> boot the VM -> verdict (exit status).
#
# Usage: scripts/hil/run.sh [--arch amd64|arm64] [--timeout S] [--only PATTERN]
#                           [--generations v1,v2] [--bin NAME=PATH]... [--bin-dir DIR]...
#                           [--file DEST=PATH]... [--prebuilt] [--interactive]
#   --arch ARCH       the guest: amd64 (default, or $HIL_ARCH): Debian 12's kernel under
#                     qemu-system-x86_64, the binaries scripts/release-build.sh builds, libgpiod
#                     1.6.3 (apt) and 2.3 (built from the PyPI sdist); arm64: trixie's arm64
#                     kernel under qemu-system-aarch64 (virt), arm64 binaries built elsewhere
#                     (scripts/arm64/), bookworm's arm64 libgpiod 1.6.3 and trixie's 2.2.1
#   --timeout S       wall clock for the VM (boot.sh's TIMEOUT_S), default 900
#   --only PATTERN    run only the guest scenarios whose file name contains PATTERN
#   --generations G   the libgpiod generations the scenarios run the binaries on: v1 (1.6), v2
#                     (2.x) or v1,v2 (the default); the smoke test's 1.6 tools run either way
#   --bin NAME=PATH   add a program to the VM as /hil/bin/NAME (see make-initramfs.sh); for a
#                     product the scenarios run (turnstiled, gpio-contract, an example's daemon),
#                     the binary to take for it, stripped and checked as the built ones are
#   --bin-dir DIR     where the products are looked for (arm64; the first DIR that has one
#                     wins); default .build-arm64/aarch64-unknown-linux-gnu/release. amd64
#                     takes them from scripts/release-build.sh's build. With --only (and, on
#                     amd64, --prebuilt), a product found nowhere is left out (a scenario that
#                     runs it fails); else the run stops before the VM
#   --file DEST=PATH  add a file to the VM as /DEST (e.g. hil/boards/x.toml=boards/x.toml)
#   --prebuilt        take the release binaries as they are (scripts/test.sh has just built
#                     them), without asking SwiftPM whether they are up to date (amd64; arm64
#                     never builds)
#   --interactive     shell on the serial console after the suite (debugging)
#
# Scenarios are the files scripts/hil/guest/scenarios/*.sh; adding one is adding a file.
# Project binaries built for the VM go into PROJECT_BINS below (or come in with --bin).
# Outputs: .build-hil/initramfs.cpio.gz and the console log .build-hil/logs/hil-<time>.log
# (.build-hil/logs/latest.log points at the newest); arm64's under .build-hil/arm64/.
set -euo pipefail
# The architecture first: common.sh's paths depend on it.
prev=""
for arg in "$@"; do
    case $prev in --arch) export HIL_ARCH=$arg ;; esac
    case $arg in --arch=*) export HIL_ARCH=${arg#--arch=} ;; esac
    prev=$arg
done
# shellcheck source=scripts/hil/common.sh
. "$(dirname "$0")/common.sh"

TIMEOUT_S=900                    # the suite with the daemon scenarios takes about half of it under TCG
ONLY=""
GENERATIONS=""
INTERACTIVE=()
PREBUILT=0
PROJECT_BINS=()                  # NAME=PATH pairs for make-initramfs.sh --bin
PROJECT_FILES=()                 # DEST=PATH pairs for make-initramfs.sh --file
PROJECT_LIBS=()                  # libraries the programs open at run time: make-initramfs.sh --lib
BIN_DIRS=()                      # --bin-dir: where the products are looked for

usage() { hil_usage "$0" "${1:-2}"; }
while [ $# -gt 0 ]; do
    case $1 in
        --arch) [ $# -ge 2 ] || usage; shift 2 ;;        # read above
        --arch=*) shift ;;
        --bin-dir) [ $# -ge 2 ] || usage; BIN_DIRS+=("$2"); shift 2 ;;
        --timeout) [ $# -ge 2 ] || usage; TIMEOUT_S=$2; shift 2 ;;
        --only) [ $# -ge 2 ] || usage; ONLY=$2; shift 2 ;;
        --generations) [ $# -ge 2 ] || usage; GENERATIONS=$2; shift 2
            [[ $GENERATIONS =~ ^(v1|v2)(,(v1|v2))?$ ]] || hil_die "--generations $GENERATIONS: v1, v2 or v1,v2" ;;
        --bin) [ $# -ge 2 ] || usage; PROJECT_BINS+=("$2"); shift 2 ;;
        --file) [ $# -ge 2 ] || usage; PROJECT_FILES+=("$2"); shift 2 ;;
        --prebuilt) PREBUILT=1; shift ;;
        --interactive) INTERACTIVE=(--interactive); shift ;;
        -h|--help) usage 0 ;;
        *) usage ;;
    esac
done

INITRAMFS=$HIL_ARCH_DIR/initramfs.cpio.gz
LOG=$HIL_ARCH_DIR/logs/hil-$(date +%Y%m%d-%H%M%S).log
STAGED=$HIL_ARCH_DIR/bin             # the stripped copies that go into the VM

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

# Chart controllers (Examples/Charts/NAME, chartd on a chart) with a packaging/hil/ take part the
# same way, on amd64: chartd is staged once, the folder's chart, binding and boards go to
# /hil/charts/PRODUCT/, and /hil/bin/PRODUCT runs chartd on the binding; libxml2, which the chart's
# loader opens at run time, goes in with what it links.
CHART_PACKAGES=()                # "FOLDER PRODUCT BINDING", relative to the work tree
for conf in "$PROJECT_DIR"/Examples/Charts/*/packaging/product.conf; do
    [ -e "$conf" ] || continue
    package=${conf%/packaging/product.conf}
    [ -d "$package/packaging/hil" ] || continue
    # shellcheck disable=SC1090
    product=$(. "$conf" && echo "${PRODUCT:?}") || hil_die "$conf does not set PRODUCT"
    # shellcheck disable=SC1090
    binding=$(. "$conf" && echo "${CHART_BINDING:?}") || hil_die "$conf does not set CHART_BINDING"
    [ -f "$package/boards/hil-gpio-sim.toml" ] \
        || hil_die "$package has packaging/hil/ but no boards/hil-gpio-sim.toml, the board its scenarios run on"
    CHART_PACKAGES+=("${package#"$PROJECT_DIR"/} $product $binding")
done
# product_source PRODUCT: the binary to take for PRODUCT: the one --bin names, else the first
# of BIN_DIRS that has it; fails when there is none.
product_source() {
    local spec dir
    for spec in "${PROJECT_BINS[@]}"; do
        [ "${spec%%=*}" = "$1" ] && { echo "${spec#*=}"; return 0; }
    done
    for dir in "${BIN_DIRS[@]}"; do
        [ -x "$dir/$1" ] && [ -f "$dir/$1" ] && { echo "$dir/$1"; return 0; }
    done
    return 1
}

# stage_package_files PACKAGE PRODUCT: what a controller's package gives the VM besides its
# program: its HIL board as /hil/boards/PRODUCT.toml, its packaging/hil scripts and scenarios.
stage_package_files() {
    local file
    PROJECT_FILES+=("hil/boards/$2.toml=$PROJECT_DIR/$1/boards/hil-gpio-sim.toml")
    for file in "$PROJECT_DIR/$1"/packaging/hil/*.sh; do
        [ -e "$file" ] && PROJECT_FILES+=("hil/guest/$(basename "$file")=$file")
    done
    for file in "$PROJECT_DIR/$1"/packaging/hil/scenarios/*.sh; do
        [ -e "$file" ] && PROJECT_FILES+=("hil/guest/scenarios/$(basename "$file")=$file")
    done
    return 0
}

# stage_bins PRODUCT...: each product stripped into STAGED and given to the VM as /hil/bin/NAME
# (in place of a --bin of the same name); with --only, one found nowhere is left out.
stage_bins() {
    local product src needed kept=() spec
    mkdir -p "$STAGED"
    for product in "$@"; do
        if ! src=$(product_source "$product"); then
            if [ -z "$ONLY" ]; then
                case $HIL_ARCH in
                    amd64) hil_die "$product is not built in ${BIN_DIRS[*]} (scripts/release-build.sh; a product of a package under Examples/ with --package-path); with --only the run goes on without it" ;;
                    arm64) hil_die "no arm64 $product in ${BIN_DIRS[*]:-(no --bin-dir)} and no --bin $product=PATH (the arm64 cross build: scripts/arm64/); with --only the run goes on without it" ;;
                esac
            fi
            hil_log "note: no $HIL_ARCH $product: left out (--only $ONLY)"
            continue
        fi
        hil_strip -o "$STAGED/$product" "$src"
        case $HIL_ARCH in
            amd64) needed=$(ldd "$STAGED/$product") ;;
            *) needed=$(readelf -d "$STAGED/$product") ;;   # ldd cannot run a foreign binary
        esac
        if grep libgpiod <<<"$needed" >/dev/null; then
            hil_die "$product links libgpiod: it must open it at run time, to serve both generations"
        fi
        hil_log "$product ($src): sha256 $(sha256sum "$STAGED/$product" | cut -d' ' -f1) (one binary for both libgpiod generations)"
        kept=()
        for spec in "${PROJECT_BINS[@]}"; do [ "${spec%%=*}" = "$product" ] || kept+=("$spec"); done
        PROJECT_BINS=("${kept[@]}" "$product=$STAGED/$product")
    done
}

# lib_file SONAME ROOT...: the library in the first ROOT's multiarch directory that has it.
lib_file() {
    local name=$1 root
    shift
    for root; do
        [ -e "$root/usr/lib/$(hil_multiarch)/$name" ] && { echo "$root/usr/lib/$(hil_multiarch)/$name"; return 0; }
    done
    hil_die "$name is in none of: $*"
}

build_project_bins() {
    local bin_dir
    case $HIL_ARCH in
        amd64)
            # Every package's release build is in the root's .build (scripts/release-build.sh).
            bin_dir=$("$PROJECT_DIR/scripts/release-build.sh" --show-bin-path)
            BIN_DIRS=("$bin_dir")
            if [ "$PREBUILT" = 0 ]; then
                "$PROJECT_DIR/scripts/release-build.sh" "${HIL_PRODUCTS[@]}"
            fi
            ;;
        arm64)
            # Built elsewhere (the SwiftPM cross build of scripts/arm64/), never here.
            [ ${#BIN_DIRS[@]} -gt 0 ] || BIN_DIRS=("$PROJECT_DIR/.build-arm64/aarch64-unknown-linux-gnu/release")
            PREBUILT=1
            ;;
    esac
    stage_bins "${HIL_PRODUCTS[@]}"
    local example package product file
    for example in "${EXAMPLE_PACKAGES[@]}"; do
        read -r package product <<<"$example"
        if [ "$PREBUILT" = 0 ]; then
            hil_step "$product" "$PROJECT_DIR/scripts/release-build.sh" --package-path "$package" "$product"
        fi
        stage_bins "$product"
        stage_package_files "$package" "$product"
    done
    if [ ${#CHART_PACKAGES[@]} -gt 0 ]; then
        if [ "$HIL_ARCH" != amd64 ]; then
            hil_log "note: the chart controllers' scenarios run on amd64 only: chartd is not built for $HIL_ARCH"
        else
            local chart binding libxml2
            [ "$PREBUILT" = 1 ] || hil_step chartd "$PROJECT_DIR/scripts/release-build.sh" chartd
            stage_bins chartd
            libxml2=$(ldconfig -p | awk '$1 == "libxml2.so.2" && $NF ~ /^\// && first == "" { first = $NF } END { print first }')
            [ -n "$libxml2" ] || hil_die "libxml2 (libxml2.so.2), which chartd opens to read a chart, is not installed (package libxml2)"
            PROJECT_LIBS+=("$libxml2")
            for chart in "${CHART_PACKAGES[@]}"; do
                read -r package product binding <<<"$chart"
                for file in "$PROJECT_DIR/$package"/*.scxml "$PROJECT_DIR/$package"/*.toml "$PROJECT_DIR/$package"/*.scenario \
                    "$PROJECT_DIR/$package"/boards/*.toml; do
                    [ -e "$file" ] && PROJECT_FILES+=("hil/charts/$product/${file#"$PROJECT_DIR/$package"/}=$file")
                done
                printf '#!/bin/sh\nexec /hil/bin/chartd --chart /hil/charts/%s/%s "$@"\n' "$product" "$binding" >"$STAGED/$product"
                chmod 0755 "$STAGED/$product"
                PROJECT_FILES+=("hil/bin/$product=$STAGED/$product")
                stage_package_files "$package" "$product"
            done
        fi
    fi
    # Both generations where the guest's dynamic loader looks: the multiarch library directory.
    # SQLite too: the daemons open it at run time for their count store (the .deb depends on
    # libsqlite3-0; the guest is a bare kernel and busybox).
    local multiarch v1_library v2_library sqlite_library
    multiarch=$(hil_multiarch)
    case $HIL_ARCH in
        amd64)
            v1_library=$(ldconfig -p | awk '$1 == "libgpiod.so.2" && $NF ~ /^\// && first == "" { first = $NF } END { print first }')
            [ -n "$v1_library" ] || hil_die "apt's libgpiod 1.6 (libgpiod.so.2) is not installed (package libgpiod2)"
            v2_library=$LIBGPIOD2_PREFIX/lib/$LIBGPIOD2_SONAME
            sqlite_library=$(ldconfig -p | awk '$1 == "libsqlite3.so.0" && $NF ~ /^\// && first == "" { first = $NF } END { print first }')
            [ -n "$sqlite_library" ] || hil_die "SQLite's library (libsqlite3.so.0) is not installed (package libsqlite3-0)"
            gcc -shared -fPIC -O2 -o "$BUILD_HIL/libmalloccount.so" \
                -I "$PROJECT_DIR/AllocationTests/Sources/CMallocCounter/include" "$PROJECT_DIR/AllocationTests/Sources/CMallocCounter/MallocCounter.c"
            ;;
        arm64)
            # bookworm's libgpiod2 (1.6.3); trixie's libgpiod3 (2.x) and SQLite, from the root
            # the binaries were linked against when it has them (make-initramfs.sh's choice).
            v1_library=$(lib_file libgpiod.so.2 "$ARM64_V1_ROOT")
            v2_library=$(lib_file "$LIBGPIOD2_SONAME" "$(hil_arm64_lib_root)" "$ARM64_GUEST_ROOT")
            sqlite_library=$(lib_file libsqlite3.so.0 "$(hil_arm64_lib_root)" "$ARM64_GUEST_ROOT")
            # The allocation counter, cross-compiled in prepare.sh's trixie root (its aarch64 gcc).
            local cc=$ARM64_TOOLS_ROOT/build/malloccount
            rm -rf "$cc"; mkdir -p "$cc"
            cp -r "$PROJECT_DIR/AllocationTests/Sources/CMallocCounter/include" \
                "$PROJECT_DIR/AllocationTests/Sources/CMallocCounter/MallocCounter.c" "$cc/"
            chroot "$ARM64_TOOLS_ROOT" aarch64-linux-gnu-gcc -shared -fPIC -O2 \
                -o /build/malloccount/libmalloccount.so -I /build/malloccount/include /build/malloccount/MallocCounter.c
            cp "$cc/libmalloccount.so" "$HIL_ARCH_DIR/libmalloccount.so"
            ;;
    esac
    PROJECT_FILES+=("usr/lib/$multiarch/libgpiod.so.2=$v1_library")
    PROJECT_FILES+=("usr/lib/$multiarch/$LIBGPIOD2_SONAME=$v2_library")
    PROJECT_FILES+=("usr/lib/$multiarch/libsqlite3.so.0=$sqlite_library")
    PROJECT_FILES+=("hil/lib/libmalloccount.so=$HIL_ARCH_DIR/libmalloccount.so")
    PROJECT_FILES+=("hil/boards/hil-gpio-sim.toml=$PROJECT_DIR/boards/hil-gpio-sim.toml")
}

make_initramfs() {
    local args=() b
    for b in "${PROJECT_BINS[@]}"; do args+=(--bin "$b"); done
    for b in "${PROJECT_FILES[@]}"; do args+=(--file "$b"); done
    for b in "${PROJECT_LIBS[@]}"; do args+=(--lib "$b"); done
    "$HIL_DIR/make-initramfs.sh" "$INITRAMFS" "${args[@]}"
}

boot() {
    local append=()
    [ -z "$ONLY" ] || append=(--append "hil.only=$ONLY")
    [ -z "$GENERATIONS" ] || append+=(--append "hil.generations=$GENERATIONS")
    mkdir -p "$(dirname "$LOG")"
    ln -sfn "$(basename "$LOG")" "$HIL_ARCH_DIR/logs/latest.log"
    # Only boot.sh (a script with its own set -e) sits in the || context.
    "$HIL_DIR/boot.sh" "$INITRAMFS" "$LOG" "$TIMEOUT_S" "${append[@]}" "${INTERACTIVE[@]}" \
        || verdict=$?
}

verdict=0
trap 'hil_timings run' EXIT      # also when a step fails and set -e ends the run
hil_log "guest: $HIL_ARCH"
hil_step prepare "$HIL_DIR/prepare.sh"
hil_step "project binaries" build_project_bins
hil_step initramfs make_initramfs
hil_step "boot + suite" boot
exit "$verdict"
