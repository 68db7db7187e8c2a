#!/usr/bin/env bash
# Build the HIL VM's initramfs (gzip'd newc cpio) from what prepare.sh left in .build-hil/.
#
# Usage: scripts/hil/make-initramfs.sh OUT.cpio.gz [--bin NAME=PATH]... [--file DEST=PATH]...
#   --bin NAME=PATH   a program, installed as /hil/bin/NAME (NAME may hold slashes, e.g.
#                     v1/turnstiled), with every library ldd names for it; /hil/bin is first
#                     on the guest's PATH
#   --file DEST=PATH  any other file, installed at /DEST as it is (data, configuration)
#
# Contents: busybox-static with all its applets; apt's libgpiod 1.6 tools (gpiodetect,
# gpioinfo, gpioget, gpioset, gpiomon, gpiofind) with their libraries and ELF interpreter;
# gpio-sim.ko and the kernel modules it depends on (/hil/modules.load lists them in load
# order); scripts/hil/guest/ as /hil/guest/ (its init as /init); /etc/passwd with root and an
# unprivileged nobody (uid 65534). The tree mirrors Debian's merged /usr (bin, sbin, lib,
# lib64 are links into /usr), so any library path ldd prints is valid in the guest.
set -euo pipefail
# shellcheck source=scripts/hil/common.sh
. "$(dirname "$0")/common.sh"

V1_TOOLS=(gpiodetect gpioinfo gpioget gpioset gpiomon gpiofind)
GZIP_LEVEL=6

usage() { hil_usage "$0" "${1:-2}"; }

[ $# -ge 1 ] || usage
OUT=$1; shift
BINS=() FILES=()
while [ $# -gt 0 ]; do
    case $1 in
        --bin) [ $# -ge 2 ] || usage; BINS+=("$2"); shift 2 ;;
        --bin=*) BINS+=("${1#--bin=}"); shift ;;
        --file) [ $# -ge 2 ] || usage; FILES+=("$2"); shift 2 ;;
        --file=*) FILES+=("${1#--file=}"); shift ;;
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
    local lib out
    out=$(ldd "$1" 2>&1) || { grep -q 'not a dynamic executable' <<<"$out" && return 0
                               hil_die "ldd $1: $out"; }
    grep -q 'not found' <<<"$out" && hil_die "ldd $1: missing libraries:"$'\n'"$out"
    for lib in $(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$out"); do
        [ -e "$ROOT/$lib" ] || copy_file "$lib" "$lib"
    done
}

# copy_prog SRC DEST: a program and its libraries.
copy_prog() {
    [ -x "$1" ] || hil_die "$1 is not an executable file"
    copy_file "$1" "$2"
    chmod 0755 "$ROOT/$2"
    copy_libs "$1"
}

# -- busybox and its applets (busybox-static: no libraries)
BUSYBOX=$(command -v busybox) || hil_die "no busybox; run scripts/hil/prepare.sh"
copy_prog "$BUSYBOX" /usr/bin/busybox
for applet in $(busybox --list-full); do      # e.g. bin/sh, sbin/insmod, usr/bin/awk
    [ -e "$ROOT/$applet" ] || [ -L "$ROOT/$applet" ] || ln -s /usr/bin/busybox "$ROOT/$applet"
done

# -- apt's libgpiod 1.6 tools
for t in "${V1_TOOLS[@]}"; do
    p=$(command -v "$t") || hil_die "no $t; is package gpiod installed?"
    copy_prog "$p" "/usr/bin/$t"
done

# -- kernel modules: gpio-sim.ko and, recursively, the in-tree modules it depends on, ordered
#    so that each comes after its dependencies. Compressed modules are stored decompressed
#    (busybox insmod reads plain .ko).
MODDIR=/lib/modules/$KVER
LOAD_ORDER=()
add_module() {   # add_module FILE
    local dep m f
    for dep in $(modinfo -F depends "$1" | tr ',' ' '); do
        f=$(modinfo -k "$KVER" -n "$dep") || hil_die "module $dep (needed by $1) not found"
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
