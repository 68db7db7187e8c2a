#!/usr/bin/env bash
# Build the HIL VM's initramfs (gzip'd newc cpio) from what prepare.sh left in .build-hil/.
#
# Usage: scripts/hil/make-initramfs.sh OUT.cpio.gz [--bin NAME=PATH]... [--file DEST=PATH]...
#   --bin NAME=PATH   a program, installed as /hil/bin/NAME (NAME may hold slashes, e.g.
#                     v1/turnstiled), with every library ldd names for it; /hil/bin is first
#                     on the guest's PATH
#   --file DEST=PATH  any other file, installed at /DEST as it is (data, configuration)
#   --lib PATH        a shared library a program opens at run time (dlopen, so ldd does not name
#                     it: libxml2 for a chart controller), at its own path, with every library it
#                     links (amd64)
#
# Contents: busybox-static with all its applets; libgpiod 1.6's tools (gpiodetect, gpioinfo,
# gpioget, gpioset, gpiomon, gpiofind) with their libraries and ELF interpreter; on arm64 also
# libgpiod 2.x's tools (trixie's gpiod) as /hil/tools/v2/*; gpio-sim.ko and the kernel modules
# it depends on (/hil/modules.load lists them in load order); scripts/hil/guest/ as /hil/guest/
# (its init as /init); /hil/versions (the libgpiod versions the guest holds, from prepare.sh);
# /etc/passwd with root and an unprivileged nobody (uid 65534). The tree mirrors Debian's
# merged /usr (bin, sbin, lib, lib64 are links into /usr), so any library path ldd prints is
# valid in the guest.
#
# HIL_ARCH (common.sh) picks the pieces: amd64 takes them from the host (its busybox, apt's
# gpiod, /lib/modules, ldd's libraries); arm64 from the trees prepare.sh unpacked under
# .build-hil/arm64 (a binary's libraries found from its ELF dynamic section, in the SDK's
# sysroot when there is one, else in trixie's unpacked libraries, then bookworm's libgpiod2).
set -euo pipefail
# shellcheck source=scripts/hil/common.sh
. "$(dirname "$0")/common.sh"

V1_TOOLS=(gpiodetect gpioinfo gpioget gpioset gpiomon gpiofind)
V2_TOOLS=(gpiodetect gpioinfo gpioget gpioset gpiomon gpionotify)
GZIP_LEVEL=6

usage() { hil_usage "$0" "${1:-2}"; }

[ $# -ge 1 ] || usage
OUT=$1; shift
BINS=() FILES=() LIBS=()
while [ $# -gt 0 ]; do
    case $1 in
        --bin) [ $# -ge 2 ] || usage; BINS+=("$2"); shift 2 ;;
        --bin=*) BINS+=("${1#--bin=}"); shift ;;
        --file) [ $# -ge 2 ] || usage; FILES+=("$2"); shift 2 ;;
        --file=*) FILES+=("${1#--file=}"); shift ;;
        --lib) [ $# -ge 2 ] || usage; LIBS+=("$2"); shift 2 ;;
        *) usage ;;
    esac
done

KVER=$(hil_kernel_version)
GPIO_SIM_KO=$MODULES_DIR/gpio-sim.ko
[ -f "$GPIO_SIM_KO" ] || hil_die "no $GPIO_SIM_KO; run scripts/hil/prepare.sh"

ROOT=$BUILD_HIL/initramfs-root
rm -rf "$ROOT"
mkdir -p "$ROOT"/usr/{bin,sbin,lib,lib64} "$ROOT"/{dev,proc,sys,tmp,etc,root,hil/bin}
for d in bin sbin lib lib64; do ln -s "usr/$d" "$ROOT/$d"; done
chmod 1777 "$ROOT/tmp"

# copy_file SRC DEST: SRC (symlinks followed) to $ROOT/DEST, making the directories.
copy_file() {
    mkdir -p "$ROOT/$(dirname "$2")"
    rm -f "$ROOT/$2"                    # never write through an applet's symlink to busybox
    cp -L "$1" "$ROOT/$2"
}

# copy_libs BIN: every shared library and the ELF interpreter that ldd names for BIN, at the
# same absolute paths. A static binary has none (ldd says "not a dynamic executable").
copy_libs() {
    [ "$HIL_ARCH" = amd64 ] || { copy_libs_cross "$1"; return; }
    local lib out
    out=$(ldd "$1" 2>&1) || { grep -q 'not a dynamic executable' <<<"$out" && return 0
                               hil_die "ldd $1: $out"; }
    grep -q 'not found' <<<"$out" && hil_die "ldd $1: missing libraries:"$'\n'"$out"
    for lib in $(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$out"); do
        [ -e "$ROOT/$lib" ] || copy_file "$lib" "$lib"
    done
}

# A foreign binary cannot be asked (ldd runs it): its ELF interpreter and NEEDED libraries are
# read with readelf and looked up in LIB_ROOTS, recursively, and installed in the guest's
# multiarch directory (the interpreter at the path the binary names).
LIB_ROOTS=()
LIB_DIRS=("usr/lib/$(hil_multiarch)" "lib/$(hil_multiarch)" usr/lib lib)
# root_file ROOT PATH: PATH inside ROOT with the last component's symlinks followed inside
# ROOT (an absolute link means ROOT's /, not the host's); prints the host path, or fails.
root_file() {
    local root=$1 rel=$2 t n=0
    while [ -L "$root/$rel" ] && [ $n -lt 16 ]; do
        t=$(readlink "$root/$rel")
        case $t in /*) rel=$t ;; *) rel=$(dirname "$rel")/$t ;; esac
        n=$((n + 1))
    done
    [ -f "$root/$rel" ] && echo "$root/$rel"
}
# find_lib NAME: the host path of the library NAME (a file name, or an absolute path for the
# interpreter) in the first of LIB_ROOTS that has it.
find_lib() {
    local root dir f
    for root in "${LIB_ROOTS[@]}"; do
        case $1 in
            /*) f=$(root_file "$root" "$1") || f=$(root_file "$root" "/usr$1") || continue
                echo "$f"; return 0 ;;
        esac
        for dir in "${LIB_DIRS[@]}"; do
            f=$(root_file "$root" "$dir/$1") && { echo "$f"; return 0; }
        done
    done
    return 1
}
elf_machine() { readelf -h "$1" | sed -n 's/^ *Machine: *//p'; }
copy_libs_cross() {
    local interp name f want
    want=$(elf_machine "$1")
    interp=$(readelf -l "$1" | sed -n 's/.*Requesting program interpreter: \(.*\)\]$/\1/p')
    if [ -n "$interp" ] && [ ! -e "$ROOT/$interp" ]; then
        f=$(find_lib "$interp") || hil_die "$1: its interpreter $interp is in none of: ${LIB_ROOTS[*]}"
        copy_file "$f" "$interp"
    fi
    for name in $(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
        [ -e "$ROOT/usr/lib/$(hil_multiarch)/$name" ] && continue
        f=$(find_lib "$name") || hil_die "$1 needs $name, which is in none of: ${LIB_ROOTS[*]}"
        [ "$(elf_machine "$f")" = "$want" ] || hil_die "$f is not for $want, as $1 is"
        copy_file "$f" "/usr/lib/$(hil_multiarch)/$name"
        copy_libs_cross "$f"
    done
}

# copy_prog SRC DEST: a program and its libraries.
copy_prog() {
    [ -x "$1" ] || hil_die "$1 is not an executable file"
    copy_file "$1" "$2"
    chmod 0755 "$ROOT/$2"
    copy_libs "$1"
}

# -- where this architecture's pieces are
case $HIL_ARCH in
    amd64)
        BUSYBOX=$(command -v busybox) || hil_die "no busybox; run scripts/hil/prepare.sh"
        BUSYBOX_RUN=("$BUSYBOX")
        V1_TOOLS_DIR=""                 # on PATH: apt's gpiod
        V2_TOOLS_DIR=""                 # none: libgpiod 2.3 is built from the sdist, without tools
        ;;
    arm64)
        BUSYBOX=$ARM64_GUEST_ROOT/usr/bin/busybox
        [ -x "$BUSYBOX" ] || hil_die "no $BUSYBOX; run HIL_ARCH=arm64 scripts/hil/prepare.sh"
        BUSYBOX_RUN=(qemu-aarch64-static "$BUSYBOX")   # static: runs on the host for its applet list
        V1_TOOLS_DIR=$ARM64_V1_ROOT/usr/bin
        V2_TOOLS_DIR=$ARM64_GUEST_ROOT/usr/bin
        LIB_ROOTS=("$(hil_arm64_lib_root)" "$ARM64_GUEST_ROOT" "$ARM64_V1_ROOT")
        hil_log "arm64 libraries from ${LIB_ROOTS[0]}"
        ;;
esac
[ -s "$VERSIONS_FILE" ] || hil_die "no $VERSIONS_FILE; run scripts/hil/prepare.sh (HIL_ARCH=$HIL_ARCH)"

# -- busybox and its applets (busybox-static: no libraries)
copy_prog "$BUSYBOX" /usr/bin/busybox
applets=$("${BUSYBOX_RUN[@]}" --list-full) || hil_die "$BUSYBOX --list-full failed"
for applet in $applets; do      # e.g. bin/sh, sbin/insmod, usr/bin/awk
    [ -e "$ROOT/$applet" ] || [ -L "$ROOT/$applet" ] || ln -s /usr/bin/busybox "$ROOT/$applet"
done

# -- libgpiod 1.6's tools (v1 command line), and 2.x's where the architecture has them
for t in "${V1_TOOLS[@]}"; do
    if [ -n "$V1_TOOLS_DIR" ]; then p=$V1_TOOLS_DIR/$t
    else p=$(command -v "$t") || hil_die "no $t; is package gpiod installed?"; fi
    copy_prog "$p" "/usr/bin/$t"
done
if [ -n "$V2_TOOLS_DIR" ]; then
    for t in "${V2_TOOLS[@]}"; do copy_prog "$V2_TOOLS_DIR/$t" "/hil/tools/v2/$t"; done
fi
grep '^HIL_[A-Z0-9_]*=' "$VERSIONS_FILE" >"$ROOT/hil/versions"

# -- kernel modules: gpio-sim.ko and, recursively, the in-tree modules it depends on, ordered
#    so that each comes after its dependencies. Compressed modules are stored decompressed
#    (busybox insmod reads plain .ko).
MODDIR=/lib/modules/$KVER
MODBASE=$(hil_modules_base)     # the tree whose lib/modules/$KVER has the kernel's modules
LOAD_ORDER=()
add_module() {   # add_module FILE
    local dep m f
    for dep in $(modinfo -F depends "$1" | tr ',' ' '); do
        f=$(modinfo -b "$MODBASE" -k "$KVER" -n "$dep") || hil_die "module $dep (needed by $1) not found"
        [ "$f" = "(builtin)" ] && continue
        add_module "$f"
    done
    m=$(basename "$1"); m=${m%.xz}; m=${m%.zst}; m=${m%.gz}
    for f in "${LOAD_ORDER[@]}"; do [ "$f" = "$MODDIR/$m" ] && return 0; done
    mkdir -p "$ROOT$MODDIR"
    case $1 in
        *.xz) xz -dc "$1" >"$ROOT$MODDIR/$m" ;;
        *.zst) zstd -qdc "$1" >"$ROOT$MODDIR/$m" ;;
        *.gz) gzip -dc "$1" >"$ROOT$MODDIR/$m" ;;
        *) cp "$1" "$ROOT$MODDIR/$m" ;;
    esac
    LOAD_ORDER+=("$MODDIR/$m")
}
add_module "$GPIO_SIM_KO"
printf '%s\n' "${LOAD_ORDER[@]}" >"$ROOT/hil/modules.load"

# -- guest scripts and /init
cp -r "$HIL_DIR/guest" "$ROOT/hil/guest"
chmod -R a+rX "$ROOT/hil/guest"
chmod 0755 "$ROOT/hil/guest/init" "$ROOT/hil/guest/suite.sh"
cp "$HIL_DIR/guest/init" "$ROOT/init"
chmod 0755 "$ROOT/init"

# -- users: root, and nobody for the permission tests
cat >"$ROOT/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/sh
EOF
cat >"$ROOT/etc/group" <<'EOF'
root:x:0:
nogroup:x:65534:
EOF
echo hil >"$ROOT/etc/hostname"

# -- project binaries and files
for spec in "${BINS[@]}"; do
    name=${spec%%=*} path=${spec#*=}
    if [ -z "$name" ] || [ "$name" = "$spec" ]; then hil_die "--bin wants NAME=PATH, got '$spec'"; fi
    copy_prog "$path" "/hil/bin/$name"
done
for lib in "${LIBS[@]}"; do
    [ -f "$lib" ] || hil_die "--lib $lib: no such library"
    copy_file "$lib" "$lib"
    copy_libs "$lib"
done
for spec in "${FILES[@]}"; do
    dest=${spec%%=*} path=${spec#*=}
    if [ -z "$dest" ] || [ "$dest" = "$spec" ]; then hil_die "--file wants DEST=PATH, got '$spec'"; fi
    copy_file "$path" "/${dest#/}"
done

# The kernel opens /dev/console before /init runs; only root can make the node (init copes
# without it by reopening the console once devtmpfs is mounted).
[ "$(id -u)" -ne 0 ] || mknod -m 600 "$ROOT/dev/console" c 5 1

mkdir -p "$(dirname "$OUT")"
(cd "$ROOT" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -"$GZIP_LEVEL" >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
hil_log "initramfs $OUT: $(du -h "$OUT" | cut -f1), modules: ${LOAD_ORDER[*]##*/}, bins: ${#BINS[@]}"
