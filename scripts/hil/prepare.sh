#!/usr/bin/env bash
# Prepare everything the HIL VM needs, idempotently; caches go under .build-hil/ (arm64's under
# .build-hil/arm64/). For HIL_ARCH=amd64 (the default):
#   1. apt packages: qemu, busybox-static, kmod, cpio, Debian's kernel and its headers and
#      source, libgpiod 1.6's tools (and with them its library), a C toolchain, pip when none
#      is found (declared in scripts/lib/packages.sh, check "hil");
#   2. gpio-sim.ko for that kernel, built out of tree (Debian ships neither GPIO_SIM nor
#      IRQ_SIM): drivers/gpio/gpio-sim.c + kernel/irq/irq_sim.c in one module;
#   3. libgpiod 2.3 as the shared library libgpiod.so.3 (prefix .build-hil/libgpiod-2.3), compiled
#      from the C sources inside the PyPI sdist gpiod==2.5.0: the VM holds it beside apt's
#      libgpiod.so.2 (1.6), and the one binary the project ships opens either.
# For HIL_ARCH=arm64 (run.sh --arch arm64):
#   1. host packages (check "hil_arm64" in scripts/lib/packages.sh): qemu-system-aarch64,
#      mmdebstrap, the arm64 binutils (strip), qemu-user-static (busybox's applet list);
#   2. arm64 .debs through an apt configuration of its own (.build-hil/arm64/apt/SUITE; the
#      host's apt sources are not touched), unpacked: trixie's linux-image-arm64 (kernel and
#      modules), busybox-static, libc6, libstdc++6, libgcc-s1, libsqlite3-0, libgpiod3 (2.x) and
#      its tools (gpiod); bookworm's libgpiod2 (1.6.3) and its tools;
#   3. gpio-sim.ko for that kernel (trixie's arm64 kernel has no CONFIG_GPIO_SIM either), built
#      as for amd64 against trixie's arm64 linux-headers, with trixie's aarch64 cross gcc and the
#      kernel's own kbuild programs in a trixie amd64 root made by mmdebstrap (.build-hil/arm64/
#      tools: those programs and that gcc need trixie's C library, not the host's).
# Usage: scripts/hil/prepare.sh            (no arguments; safe to run again, cheap when cached)
# Writes .build-hil/kernel-version (arm64: .build-hil/arm64/kernel-version), which the other
# scripts read.
set -euo pipefail
# shellcheck source=scripts/hil/common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=scripts/lib/packages.sh
. "$HIL_DIR/../lib/packages.sh"
[ $# -eq 0 ] || hil_usage "$0" 2

GPIOD_SDIST_VERSION=2.5.0       # PyPI gpiod sdist that carries libgpiod's C sources
LIBGPIOD2_VERSION=2.3           # the libgpiod version those sources are
LIBGPIOD2_CFLAGS="-O2 -fPIC -D_GNU_SOURCE"
# sha256 of gpiod-2.5.0.tar.gz as PyPI served it (pip checks the index hash; this pins the file).
GPIOD_SDIST_SHA256=53ae5a1f14d6388c155b591ca0fc0cfa73b44d4f6d8d117e8a9e68f5902d187a

DOWNLOADS=$BUILD_HIL/downloads
SRC=$BUILD_HIL/src

# A command line that runs pip, or nothing when there is none.
find_pip() {
    if python3 -m pip --version >/dev/null 2>&1; then echo "python3 -m pip"
    elif command -v pip3 >/dev/null 2>&1; then echo pip3
    elif command -v pip >/dev/null 2>&1; then echo pip
    fi
}

step_apt() {
    # Which packages, and why, is declared in scripts/lib/packages.sh (check "hil"): scripts/test.sh
    # installs them up front, before lane a (this) and lane b run in parallel, so there this finds
    # nothing missing and calls no apt-get; run alone, this installs them.
    packages_ensure hil
    packages_hil_kernel || hil_die "cannot tell which kernel linux-image-amd64 installs"
    KVER=$HIL_KVER KDEBVER=$HIL_KDEBVER KSERIES=$HIL_KSERIES
    [ -d "/lib/modules/$KVER" ] || hil_die "/lib/modules/$KVER missing after installing $HIL_KPKG"
    [ -r "/boot/vmlinuz-$KVER" ] || hil_die "/boot/vmlinuz-$KVER missing or unreadable"
    local src="linux-source-$KSERIES"
    SRCDEBVER=$(dpkg-query -W -f='${Version}' "$src")
    SRC_TARBALL=/usr/src/linux-source-$KSERIES.tar.xz
    [ -r "$SRC_TARBALL" ] || hil_die "$SRC_TARBALL missing"

    mkdir -p "$BUILD_HIL"
    echo "$KVER" >"$KERNEL_VERSION_FILE"
    hil_log "kernel $KVER (image $KDEBVER, source $SRCDEBVER)"
}

# ---- gpio-sim.ko ---------------------------------------------------------------------------

step_gpio_sim() {
    local key="kver=$KVER source=$SRCDEBVER"
    local ko=$MODULES_DIR/gpio-sim.ko
    if [ -f "$ko" ] && [ "$(cat "$MODULES_DIR/.stamp" 2>/dev/null)" = "$key" ]; then
        hil_log "gpio-sim.ko cached ($key)"; return
    fi
    local top=linux-source-$KSERIES
    local ksrc=$SRC/linux-$SRCDEBVER
    if [ ! -f "$ksrc/.extracted" ]; then
        rm -rf "$ksrc"; mkdir -p "$ksrc"
        # Only the files the module needs (xz still has to stream the whole tarball).
        local files=("$top/drivers/gpio/gpio-sim.c" "$top/drivers/gpio/gpiolib.h" "$top/kernel/irq/irq_sim.c")
        if [ -n "${SRC_DEB:-}" ]; then     # arm64: the tarball inside linux-source's .deb
            dpkg-deb --fsys-tarfile "$SRC_DEB" | tar -xO "./usr/src/linux-source-$KSERIES.tar.xz" \
                | tar -xJ -C "$ksrc" --strip-components=1 "${files[@]}"
        else
            tar -xJf "$SRC_TARBALL" -C "$ksrc" --strip-components=1 "${files[@]}"
        fi
        touch "$ksrc/.extracted"
    fi

    # amd64 builds on the host against its installed headers; arm64 in the tools root, where
    # step_arm64_debs unpacked trixie's arm64 headers (a chroot: its gcc and kbuild programs need
    # trixie's C library).
    local b make_cmd
    case $HIL_ARCH in
        amd64) b=$BUILD_HIL/gpio-sim-build
               make_cmd=(make -s -C "/lib/modules/$KVER/build" M="$b" modules) ;;
        arm64) b=$ARM64_TOOLS_ROOT/build/gpio-sim
               make_cmd=(chroot "$ARM64_TOOLS_ROOT" make -s -C "/usr/src/linux-headers-$KVER"
                         M=/build/gpio-sim ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- modules) ;;
    esac
    rm -rf "$b"; mkdir -p "$b"
    # A composite module may not share its name with one of its sources, hence the rename.
    cp "$ksrc/drivers/gpio/gpio-sim.c" "$b/gpio-sim-main.c"
    cp "$ksrc/drivers/gpio/gpiolib.h" "$b/gpiolib.h"
    # irq_to_desc is not exported to modules; generic_handle_irq does the same for us.
    sed 's/handle_simple_irq(irq_to_desc(\([a-z_]*\)))/generic_handle_irq(\1)/' \
        "$ksrc/kernel/irq/irq_sim.c" >"$b/irq_sim.c"
    grep -q 'irq_to_desc' "$b/irq_sim.c" && hil_die "irq_sim.c: the irq_to_desc patch did not apply"
    cat >"$b/Kbuild" <<'EOF'
obj-m := gpio-sim.o
gpio-sim-y := gpio-sim-main.o irq_sim.o
EOF
    "${make_cmd[@]}" >"$b/build.log" 2>&1 \
        || { cat "$b/build.log" >&2; hil_die "gpio-sim.ko build failed"; }
    local vm
    vm=$(modinfo -F vermagic "$b/gpio-sim.ko")
    case $vm in "$KVER "*) ;; *) hil_die "gpio-sim.ko vermagic '$vm' is not for $KVER" ;; esac
    mkdir -p "$MODULES_DIR"
    cp "$b/gpio-sim.ko" "$ko"
    echo "$key" >"$MODULES_DIR/.stamp"
    hil_log "built $ko (depends: '$(modinfo -F depends "$ko")')"
}

# ---- libgpiod 2.3, shared ------------------------------------------------------------------

step_libgpiod2() {
    local key="sdist=gpiod-$GPIOD_SDIST_VERSION cflags=$LIBGPIOD2_CFLAGS shared"
    local p=$LIBGPIOD2_PREFIX
    if [ -f "$p/lib/$LIBGPIOD2_SONAME" ] && [ "$(cat "$p/.stamp" 2>/dev/null)" = "$key" ]; then
        hil_log "libgpiod $LIBGPIOD2_VERSION cached ($p)"; return
    fi
    local tarball=$DOWNLOADS/gpiod-$GPIOD_SDIST_VERSION.tar.gz
    if [ ! -f "$tarball" ]; then
        local pip
        pip=$(find_pip)
        [ -n "$pip" ] || hil_die "no pip (python3 -m pip, pip3, pip) found"
        mkdir -p "$DOWNLOADS"
        $pip download -q --no-deps --no-binary :all: -d "$DOWNLOADS" "gpiod==$GPIOD_SDIST_VERSION"
        [ -f "$tarball" ] || hil_die "pip did not leave $tarball"
    fi
    echo "$GPIOD_SDIST_SHA256  $tarball" | sha256sum -c --quiet - \
        || hil_die "$tarball: unexpected sha256 (delete it to download again)"
    local s=$SRC/gpiod-$GPIOD_SDIST_VERSION
    rm -rf "$s"; mkdir -p "$SRC"
    tar -xzf "$tarball" -C "$SRC"
    if [ ! -f "$s/include/gpiod.h" ] || [ ! -f "$s/lib/chip.c" ]; then
        hil_die "the sdist has no lib/*.c + include/gpiod.h"
    fi
    [ "$(cat "$s/libgpiod-version.txt")" = "$LIBGPIOD2_VERSION" ] \
        || hil_die "the sdist carries libgpiod $(cat "$s/libgpiod-version.txt"), not $LIBGPIOD2_VERSION"

    local o=$BUILD_HIL/libgpiod2-build f
    rm -rf "$o"; mkdir -p "$o"
    for f in "$s"/lib/*.c; do
        # shellcheck disable=SC2086
        gcc $LIBGPIOD2_CFLAGS -DGPIOD_API_VERSION_STR="\"$LIBGPIOD2_VERSION\"" \
            -I"$s/include" -I"$s/lib" -c "$f" -o "$o/$(basename "${f%.c}").o"
    done
    rm -rf "$p"; mkdir -p "$p/include" "$p/lib"
    gcc -shared -Wl,-soname,"$LIBGPIOD2_SONAME" -o "$p/lib/$LIBGPIOD2_SONAME" "$o"/*.o
    cp "$s/include/gpiod.h" "$p/include/"
    # The sdist is the Python binding; it is not expected to carry libgpiod's tools/.
    if [ -d "$s/tools" ]; then hil_log "note: the sdist has tools/ (not built)"; fi
    local got
    got=$(readelf -d "$p/lib/$LIBGPIOD2_SONAME" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
    [ "$got" = "$LIBGPIOD2_SONAME" ] || hil_die "the library's soname is '$got', not $LIBGPIOD2_SONAME"
    # Link a one-liner against it: the library loads and reports its version.
    printf '#include <gpiod.h>\n#include <stdio.h>\nint main(void) { puts(gpiod_api_version()); return 0; }\n' >"$o/t.c"
    gcc "$o/t.c" -o "$o/t" -I"$p/include" "$p/lib/$LIBGPIOD2_SONAME" -Wl,-rpath,"$p/lib"
    got=$("$o/t")
    [ "$got" = "$LIBGPIOD2_VERSION" ] || hil_die "gpiod_api_version() says $got"
    echo "$key" >"$p/.stamp"
    hil_log "built $p/lib/$LIBGPIOD2_SONAME ($(find "$o" -name '*.o' | wc -l) objects)"
}

# ---- arm64: the guest's packages, from Debian's arm64 archive --------------------------------

ARM64_KERNEL_SUITE=trixie       # the kernel, busybox, the C library, SQLite, libgpiod 2.x
ARM64_V1_SUITE=bookworm         # libgpiod 1.6 (libgpiod2), as Raspberry Pi OS bookworm has it
ARM64_GUEST_PACKAGES=(busybox-static libc6 libstdc++6 libgcc-s1 libsqlite3-0 libgpiod3 gpiod)
ARM64_V1_PACKAGES=(libgpiod2 gpiod)
ARM64_LISTS_MAX_AGE_MIN=720     # apt-get update of the private lists at most twice a day
# The trixie amd64 root the module is built in: the aarch64 cross gcc (trixie's gcc 14, the one
# the kernel was built with: the headers' configuration holds that compiler's flags), its C
# library (for the allocation counter run.sh preloads), make.
ARM64_TOOLS_PACKAGES=gcc-aarch64-linux-gnu,libc6-dev-arm64-cross,make,xz-utils,kmod

# The Debian mirror this machine's own apt sources name (deb822 or one-line).
host_mirror() {
    local m
    m=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null \
        | grep -v security | grep debian | sed -n 1p || true)
    [ -n "$m" ] || m=$(sed -n 's/^deb *\(\[[^]]*\] *\)\{0,1\}\(http[^ ]*\) *[a-z]*  *main.*/\2/p' \
        /etc/apt/sources.list 2>/dev/null | grep -v security | sed -n 1p || true)
    [ -n "$m" ] || hil_die "no Debian mirror found in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list"
    echo "$m"
}

# arm64_apt SUITE apt-get|apt-cache ARGS...: the tool on SUITE's arm64 lists, in an apt
# configuration of its own under .build-hil/arm64/apt/SUITE (made on first use). A Release file
# older than the clock allows is taken as it is (the mirror may be a snapshot), as
# scripts/arm64/sdk.sh does.
arm64_apt() {
    local suite=$1 tool=$2 a=$HIL_ARCH_DIR/apt/$1
    shift 2
    if [ ! -f "$a/apt.conf" ]; then
        mkdir -p "$a/etc/apt.conf.d" "$a/etc/preferences.d" "$a/etc/sources.list.d" \
            "$a/state/lists/partial" "$a/cache/archives/partial" "$a/state/dpkg"
        : >"$a/state/dpkg/status"
        echo "deb [arch=arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR $suite main" \
            >"$a/etc/sources.list"
        printf '%s\n' \
            "Dir::Etc \"$a/etc\";" \
            "Dir::Etc::sourcelist \"$a/etc/sources.list\";" \
            "Dir::Etc::sourceparts \"$a/etc/sources.list.d\";" \
            "Dir::Etc::parts \"$a/etc/apt.conf.d\";" \
            "Dir::Etc::preferencesparts \"$a/etc/preferences.d\";" \
            "Dir::State \"$a/state\";" \
            "Dir::State::status \"$a/state/dpkg/status\";" \
            "Dir::Cache \"$a/cache\";" \
            'APT::Architecture "arm64";' \
            'APT::Architectures { "arm64"; };' \
            'APT::Sandbox::User "root";' \
            'Acquire::Check-Valid-Until "false";' \
            'Acquire::Languages "none";' >"$a/apt.conf"
    fi
    APT_CONFIG=$a/apt.conf "$tool" "$@"
}

# arm64_update SUITE: its lists, fetched when missing or older than ARM64_LISTS_MAX_AGE_MIN.
arm64_update() {
    local lists=$HIL_ARCH_DIR/apt/$1/state/lists
    if [ -n "$(find "$lists" -maxdepth 1 -name '*_Packages' -mmin -"$ARM64_LISTS_MAX_AGE_MIN" 2>/dev/null)" ]; then
        return 0
    fi
    mkdir -p "$HIL_ARCH_DIR/apt"
    arm64_apt "$1" apt-get update -q >"$HIL_ARCH_DIR/apt/$1.update.log" 2>&1 \
        || { cat "$HIL_ARCH_DIR/apt/$1.update.log" >&2; hil_die "apt-get update of $1 (arm64) failed"; }
}

# arm64_debs SUITE PACKAGE...: the .deb of each (the candidate version), downloaded once into
# .build-hil/arm64/debs; prints their paths, one a line, in the order asked.
arm64_debs() {
    local suite=$1 p v f d=$HIL_ARCH_DIR/debs
    shift
    mkdir -p "$d"
    for p; do
        v=$(arm64_apt "$suite" apt-cache policy "$p" | sed -n 's/^ *Candidate: //p')
        [ -n "$v" ] && [ "$v" != "(none)" ] || hil_die "$suite (arm64) has no package $p"
        # The file name apt-get download gives it (an epoch's colon as %3a).
        f=$d/${p}_${v//:/%3a}_$(arm64_apt "$suite" apt-cache show "$p=$v" | sed -n '1,/^$/s/^Architecture: //p').deb
        if [ ! -f "$f" ]; then
            (cd "$d" && arm64_apt "$suite" apt-get download -q "$p=$v" >/dev/null) \
                || hil_die "apt-get download $p=$v ($suite, arm64) failed"
            [ -f "$f" ] || hil_die "apt-get download $p=$v left no $f"
        fi
        echo "$f"
    done
}

# The upstream part of a Debian version: 1:2.2.1-2+deb13u1 -> 2.2.1.
upstream_version() { local v=${1#*:}; echo "${v%-*}"; }
deb_version() { dpkg-deb -f "$1" Version; }

# unpack_into DIR DEB...: a tree of its own, as dpkg would lay the packages out under /, made
# again whenever the set of .debs changes.
unpack_into() {
    local dir=$1 key deb
    shift
    key=$(printf '%s\n' "${@##*/}")
    [ "$(cat "$dir/.debs" 2>/dev/null)" = "$key" ] && return 0
    rm -rf "$dir"; mkdir -p "$dir"
    for deb; do dpkg-deb -x "$deb" "$dir"; done
    echo "$key" >"$dir/.debs"
}

step_arm64_packages() {
    # The tools root (mmdebstrap's root mode) and the builds in it (chroot) need root; run.sh's
    # cross-compiled allocation counter too.
    [ "$(id -u)" -eq 0 ] || hil_die "the arm64 HIL needs root (mmdebstrap, chroot)"
    packages_ensure hil_arm64
}

step_arm64_debs() {
    MIRROR=$(host_mirror)
    mkdir -p "$HIL_ARCH_DIR"
    arm64_update "$ARM64_KERNEL_SUITE"
    arm64_update "$ARM64_V1_SUITE"
    # linux-image-arm64 depends on the versioned image (linux-image-6.12.NN+deb13-arm64).
    KPKG=$(arm64_apt "$ARM64_KERNEL_SUITE" apt-cache depends linux-image-arm64 \
        | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | sed -n 1p)
    [ -n "$KPKG" ] || hil_die "cannot tell which kernel $ARM64_KERNEL_SUITE's linux-image-arm64 depends on"
    KVER=${KPKG#linux-image-}                          # e.g. 6.12.57+deb13-arm64
    KSERIES=$(echo "$KVER" | cut -d. -f1,2)            # e.g. 6.12
    local kbase=${KVER%-arm64}                          # e.g. 6.12.57+deb13
    local image headers common
    image=$(arm64_debs "$ARM64_KERNEL_SUITE" "$KPKG")
    headers=$(arm64_debs "$ARM64_KERNEL_SUITE" "linux-headers-$KVER")
    common=$(arm64_debs "$ARM64_KERNEL_SUITE" "linux-headers-$kbase-common")
    SRC_DEB=$(arm64_debs "$ARM64_KERNEL_SUITE" "linux-source-$KSERIES")
    KDEBVER=$(deb_version "$image")
    SRCDEBVER=$(deb_version "$SRC_DEB")
    [ "$SRCDEBVER" = "$KDEBVER" ] \
        || hil_log "note: linux-source-$KSERIES is $SRCDEBVER, the kernel $KDEBVER (gpio-sim.c may differ)"
    local guest=() v1=()
    mapfile -t guest < <(arm64_debs "$ARM64_KERNEL_SUITE" "${ARM64_GUEST_PACKAGES[@]}")
    mapfile -t v1 < <(arm64_debs "$ARM64_V1_SUITE" "${ARM64_V1_PACKAGES[@]}")
    [ ${#guest[@]} -eq ${#ARM64_GUEST_PACKAGES[@]} ] && [ ${#v1[@]} -eq ${#ARM64_V1_PACKAGES[@]} ] \
        || hil_die "some arm64 packages could not be had"

    # The kernel: its image and modules; lib -> usr/lib and depmod, so that modinfo -b finds the
    # modules gpio-sim.ko depends on (the .deb has no modules.dep: its postinst makes it).
    unpack_into "$ARM64_KERNEL_ROOT" "$image"
    [ -r "$ARM64_KERNEL_ROOT/boot/vmlinuz-$KVER" ] || hil_die "$KPKG has no /boot/vmlinuz-$KVER"
    if [ ! -f "$ARM64_KERNEL_ROOT/lib/modules/$KVER/modules.dep" ]; then
        [ -e "$ARM64_KERNEL_ROOT/lib" ] || ln -s usr/lib "$ARM64_KERNEL_ROOT/lib"
        depmod -b "$ARM64_KERNEL_ROOT" "$KVER" || hil_die "depmod of $KPKG's modules failed"
    fi
    if [ -n "$(find "$ARM64_KERNEL_ROOT/lib/modules/$KVER/" -name 'gpio-sim.ko*' -print -quit)" ]; then
        hil_log "note: $KPKG ships gpio-sim.ko; the harness still loads the one it builds"
    fi
    unpack_into "$ARM64_GUEST_ROOT" "${guest[@]}"
    unpack_into "$ARM64_V1_ROOT" "${v1[@]}"

    # The tools root: a trixie amd64 root with the cross gcc and this kernel's kbuild programs
    # (linux-kbuild-VERSION, amd64), made again when the kernel changes; the arm64 headers are
    # unpacked into it (their scripts/ is a link to that kbuild).
    local tools_key="$ARM64_KERNEL_SUITE linux-kbuild-$kbase $ARM64_TOOLS_PACKAGES"
    if [ "$(cat "$ARM64_TOOLS_ROOT/.stamp" 2>/dev/null)" != "$tools_key" ]; then
        hil_log "a $ARM64_KERNEL_SUITE amd64 root for the cross build (mmdebstrap, about a minute)"
        rm -rf "$ARM64_TOOLS_ROOT"
        mmdebstrap --aptopt='Acquire::Check-Valid-Until "false"' --variant=essential --include="$ARM64_TOOLS_PACKAGES,linux-kbuild-$kbase" \
            "$ARM64_KERNEL_SUITE" "$ARM64_TOOLS_ROOT" "deb $MIRROR $ARM64_KERNEL_SUITE main" \
            </dev/null >"$HIL_ARCH_DIR/mmdebstrap.log" 2>&1 || {
                tail -n 30 "$HIL_ARCH_DIR/mmdebstrap.log" >&2
                rm -rf "$ARM64_TOOLS_ROOT"
                hil_die "mmdebstrap of the tools root failed"
            }
        echo "$tools_key" >"$ARM64_TOOLS_ROOT/.stamp"
    fi
    if [ "$(cat "$ARM64_TOOLS_ROOT/.headers" 2>/dev/null)" != "$KDEBVER" ]; then
        dpkg-deb -x "$common" "$ARM64_TOOLS_ROOT"
        dpkg-deb -x "$headers" "$ARM64_TOOLS_ROOT"
        echo "$KDEBVER" >"$ARM64_TOOLS_ROOT/.headers"
    fi
    [ -e "$ARM64_TOOLS_ROOT/usr/src/linux-headers-$KVER/scripts/basic/fixdep" ] \
        || hil_die "the tools root has no kbuild for $KVER (linux-kbuild-$kbase)"

    echo "$KVER" >"$KERNEL_VERSION_FILE"
    local libgpiod1="" libgpiod2="" deb
    for deb in "${v1[@]}"; do case ${deb##*/} in libgpiod2_*) libgpiod1=$(deb_version "$deb") ;; esac; done
    for deb in "${guest[@]}"; do case ${deb##*/} in libgpiod3_*) libgpiod2=$(deb_version "$deb") ;; esac; done
    {
        echo "# $KPKG $KDEBVER ($ARM64_KERNEL_SUITE)"
        for deb in "${guest[@]}"; do echo "# $(dpkg-deb -f "$deb" Package) $(deb_version "$deb") ($ARM64_KERNEL_SUITE)"; done
        for deb in "${v1[@]}"; do echo "# $(dpkg-deb -f "$deb" Package) $(deb_version "$deb") ($ARM64_V1_SUITE)"; done
        echo "HIL_LIBGPIOD_V1=$(upstream_version "$libgpiod1")"
        echo "HIL_LIBGPIOD_V2=$(upstream_version "$libgpiod2")"
    } >"$VERSIONS_FILE"
    hil_log "kernel $KVER (image $KDEBVER, source $SRCDEBVER); libgpiod $(upstream_version "$libgpiod1") ($ARM64_V1_SUITE) and $(upstream_version "$libgpiod2") ($ARM64_KERNEL_SUITE)"
}

trap 'hil_timings prepare' EXIT
case $HIL_ARCH in
    amd64)
        hil_step "apt packages" step_apt
        hil_step "gpio-sim.ko" step_gpio_sim
        hil_step "libgpiod $LIBGPIOD2_VERSION (shared)" step_libgpiod2
        {
            echo "# $HIL_KPKG $KDEBVER"
            echo "# libgpiod2 $(dpkg-query -W -f='${Version}' libgpiod2) (apt)"
            echo "# libgpiod $LIBGPIOD2_VERSION (the PyPI sdist gpiod==$GPIOD_SDIST_VERSION)"
            echo "HIL_LIBGPIOD_V1=$(upstream_version "$(dpkg-query -W -f='${Version}' libgpiod2)")"
            echo "HIL_LIBGPIOD_V2=$LIBGPIOD2_VERSION"
        } >"$VERSIONS_FILE"
        hil_log "ready: kernel /boot/vmlinuz-$KVER, module $MODULES_DIR/gpio-sim.ko,"
        hil_log "       libgpiod 2.3: $LIBGPIOD2_PREFIX/lib/$LIBGPIOD2_SONAME"
        ;;
    arm64)
        hil_step "host packages" step_arm64_packages
        hil_step "arm64 packages" step_arm64_debs
        hil_step "gpio-sim.ko" step_gpio_sim
        hil_log "ready: kernel $(hil_kernel_image "$KVER"), module $MODULES_DIR/gpio-sim.ko"
        ;;
esac
