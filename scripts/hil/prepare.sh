#!/usr/bin/env bash
# Prepare everything the HIL VM needs, idempotently; caches go under .build-hil/.
#   1. apt packages: qemu, busybox-static, kmod, cpio, Debian's kernel and its headers and
#      source, libgpiod 1.6's tools (and with them its library), a C toolchain, pip when none
#      is found (declared in scripts/lib/packages.sh, check "hil");
#   2. gpio-sim.ko for that kernel, built out of tree (Debian ships neither GPIO_SIM nor
#      IRQ_SIM): drivers/gpio/gpio-sim.c + kernel/irq/irq_sim.c in one module;
#   3. libgpiod 2.3 as the shared library libgpiod.so.3 (prefix .build-hil/libgpiod-2.3), compiled
#      from the C sources inside the PyPI sdist gpiod==2.5.0: the VM holds it beside apt's
#      libgpiod.so.2 (1.6), and the one binary the project ships opens either.
# Usage: scripts/hil/prepare.sh            (no arguments; safe to run again, cheap when cached)
# Writes .build-hil/kernel-version, which the other scripts read.
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
        tar -xJf "$SRC_TARBALL" -C "$ksrc" --strip-components=1 \
            "$top/drivers/gpio/gpio-sim.c" "$top/drivers/gpio/gpiolib.h" "$top/kernel/irq/irq_sim.c"
        touch "$ksrc/.extracted"
    fi

    local b=$BUILD_HIL/gpio-sim-build
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
    make -s -C "/lib/modules/$KVER/build" M="$b" modules >"$b/build.log" 2>&1 \
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

trap 'hil_timings prepare' EXIT
hil_step "apt packages" step_apt
hil_step "gpio-sim.ko" step_gpio_sim
hil_step "libgpiod $LIBGPIOD2_VERSION (shared)" step_libgpiod2

hil_log "ready: kernel /boot/vmlinuz-$KVER, module $MODULES_DIR/gpio-sim.ko,"
hil_log "       libgpiod 2.3: $LIBGPIOD2_PREFIX/lib/$LIBGPIOD2_SONAME"
