#!/usr/bin/env bash
# Builds the Debian package of a controller's daemon: .build-deb/<product>_<version>_<arch>.deb.
#
# Usage: scripts/package-deb.sh [--product NAME] [--package-path DIR] [--arch amd64|arm64]
#                               [--binary PATH]
#   --product NAME       the daemon to package (default turnstiled): an executable product of
#                        this package or of a package under Examples/ (barrierd, the parking
#                        barrier's, in Examples/ParkingBarrier), or a chart controller under
#                        Examples/Charts (doord, the door chart's, in Examples/Charts/door)
#   --package-path DIR   the Swift package that declares it (default: found from NAME)
#   --arch ARCH          the package's architecture; default this machine's (dpkg). Only the
#                        machine's own architecture can be built: see "arm64" below.
#   --binary PATH        package this binary instead of building one (it must be a release
#                        build for ARCH, made with --static-swift-stdlib)
#                        (default: scripts/release-build.sh's, in the package's .build, the
#                        build the HIL binaries come from too, so CI compiles it once)
#
# What the package says about itself comes from its product's packaging/product.conf (this
# package's for turnstiled, Examples/ParkingBarrier/packaging/product.conf for barrierd): its
# descriptions, the settings table, the status page's port. Everything else is shared: the unit,
# udev rule, maintainer scripts, lintian overrides and copyright in packaging/ are templates
# whose @DAEMON@ (and the like) are filled in here, so every controller's .deb behaves the
# same and several install side by side, each with its own user, group, paths and unit.
#
# Contents, for NAME: /usr/bin/NAME; the unit /lib/systemd/system/NAME.service and the udev
# rule /lib/udev/rules.d/60-NAME-gpio.rules; the package's boards/*.toml under
# /usr/share/NAME/boards; the conffile /etc/NAME/board.toml, generated here from boards/sim.toml
# so a fresh installation runs the simulated controller until configured; the man page NAME(8)
# generated from the binary's --help (scripts/man-page.sh); the package's README and the
# copyright under /usr/share/doc/NAME; the maintainer scripts from packaging/debian/.
# Depends: computed by dpkg-shlibdeps from the libraries the binary links (libc6, libstdc++6,
# libgcc-s1, and whatever it links later), plus adduser for postinst and libgpiod3 | libgpiod2:
# the binary opens libgpiod 2.x or 1.6 at run time (dlopen), which dpkg-shlibdeps cannot see,
# so one package installs on Debian 12 (libgpiod2, 1.6) and on trixie and newer (libgpiod3);
# and libsqlite3-0, which the count store opens at run time (libsqlite3.so.0) just as unseen.
# Suggests: libmosquitto1, opened at run time by `run --mqtt` only (a site's broker).
#
# A chart controller (its product.conf sets CHART_BINDING): the package ships chartd (this
# package's) as /usr/lib/NAME/chartd, and /usr/bin/NAME is a script that runs it on the chart:
# `chartd --chart /usr/share/NAME/BINDING "$@"`; the folder's chart, binding and scenarios are
# in /usr/share/NAME beside its boards/. It also Depends on libxml2, which the chart's loader
# opens at run time (libxml2.so.2).
#
# arm64 on an amd64 machine: --arch arm64 packages the aarch64 build of scripts/release-build.sh
# --arch arm64 (Swift SDK: scripts/arm64/sdk.sh); the binary runs under qemu-user for its --help,
# --version and check, and dpkg-shlibdeps runs in the SDK's trixie arm64 root, against trixie's
# own symbols files (so Depends asks for what trixie has: libc6 >= 2.38 and the like). On an
# arm64 machine (a Raspberry Pi 4/5 with a 64-bit OS) it is an ordinary native build.
#
# Needs: swift, dpkg-dev (dpkg-shlibdeps), binutils (strip, readelf), gzip.
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "package-deb: $*" >&2; exit 1; }
usage() { # usage [STATUS]: the header above; on standard error unless asked for (--help)
    local status=${1:-2}
    if [ "$status" -eq 0 ]; then help_text; else help_text >&2; fi
    exit "$status"
}
help_text() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }

PRODUCT=turnstiled
PACKAGE_PATH=""
ARCH=""
BINARY=""
while [ $# -gt 0 ]; do
    case $1 in
        --product) [ $# -ge 2 ] || usage; PRODUCT=$2; shift 2 ;;
        --package-path) [ $# -ge 2 ] || usage; PACKAGE_PATH=${2%/}; shift 2 ;;
        --arch) [ $# -ge 2 ] || usage; ARCH=$2; shift 2 ;;
        --binary) [ $# -ge 2 ] || usage; BINARY=$2; shift 2 ;;
        -h|--help) usage 0 ;;
        *) usage ;;
    esac
done
[[ $PRODUCT =~ ^[a-z][a-z0-9-]*$ ]] \
    || die "--product $PRODUCT: a daemon's name is lower-case letters, digits and hyphens (a Debian package's, a user's)"

# The package that declares the product: this one or one under Examples/ (a package of its own).
if [ -z "$PACKAGE_PATH" ]; then
    PACKAGE_PATH=$(scripts/product-package.sh "$PRODUCT") \
        || die "--product $PRODUCT: give the package that declares it with --package-path DIR"
fi
CONF=$PACKAGE_PATH/packaging/product.conf
[ -f "$CONF" ] \
    || die "$CONF: missing; a product's package says what its .deb is in packaging/product.conf (copy packaging/product.conf, turnstiled's, and change each line)"
requested=$PRODUCT
CHART_BINDING=""
# shellcheck source=../packaging/product.conf
. "$CONF"
chart=0
if [ -n "$CHART_BINDING" ]; then
    chart=1
    [ -f "$PACKAGE_PATH/$CHART_BINDING" ] || die "$CONF: CHART_BINDING=$CHART_BINDING: no such file in $PACKAGE_PATH"
else
    [ -f "$PACKAGE_PATH/Package.swift" ] || die "--package-path $PACKAGE_PATH: no Package.swift there"
fi
[ "$PRODUCT" = "$requested" ] \
    || die "$CONF describes $PRODUCT, not $requested: the package in $PACKAGE_PATH ships $PRODUCT's .deb; give --package-path DIR of the package whose packaging/product.conf says PRODUCT=$requested"
for key in THING SETTINGS_SECTION DATABASE_HOLDS HTTP_PORT UNIT_DESCRIPTION BOARD_EXAMPLE BOARDS_NOTE SUMMARY DESCRIPTION; do
    [ -n "${!key:-}" ] || die "$CONF: $key is not set (see packaging/product.conf for what each line is)"
done
[[ $HTTP_PORT =~ ^[1-9][0-9]{0,4}$ ]] && [ "$HTTP_PORT" -le 65535 ] \
    || die "$CONF: HTTP_PORT=$HTTP_PORT is not a port number (1-65535)"
for file in boards/sim.toml "boards/$BOARD_EXAMPLE" README.md; do
    [ -f "$PACKAGE_PATH/$file" ] || die "$PACKAGE_PATH/$file: missing; the .deb ships it (BOARD_EXAMPLE in $CONF names the board to copy)"
done

for tool in dpkg-deb dpkg-shlibdeps strip readelf gzip; do
    command -v "$tool" >/dev/null 2>&1 \
        || die "$tool is missing: sudo apt-get install dpkg-dev binutils gzip"
done

HOST_ARCH=$(dpkg --print-architecture)
ARCH=${ARCH:-$HOST_ARCH}
case $ARCH in
    amd64) ELF_MACHINE="Advanced Micro Devices X86-64" ;;
    arm64) ELF_MACHINE="AArch64" ;;
    *) die "--arch $ARCH: only amd64 and arm64 are supported" ;;
esac
release_build=(scripts/release-build.sh)
strip=strip
cross=0
if [ "$ARCH" != "$HOST_ARCH" ]; then
    [ "$ARCH" = arm64 ] && [ "$HOST_ARCH" = amd64 ] \
        || die "cannot build an $ARCH package on this $HOST_ARCH machine: only arm64 on amd64 is" \
            "cross-built (scripts/arm64/sdk.sh); run this script on an $ARCH machine"
    cross=1
    # shellcheck source=lib/arm64.sh
    . scripts/lib/arm64.sh
    [ -f "$ARM64_SYSROOT/.made" ] || die "--arch arm64 needs the arm64 SDK: run scripts/arm64/sdk.sh first"
    arm64_binfmt || die "aarch64 programs cannot be run here under qemu (binfmt_misc)"
    # The binary's own runs below (--help, --version, check, the man page) under qemu.
    export QEMU_LD_PREFIX=$ARM64_SYSROOT
    release_build+=(--arch arm64)
    strip=aarch64-linux-gnu-strip
fi
command -v "$strip" >/dev/null 2>&1 || die "$strip is missing: sudo apt-get install binutils-aarch64-linux-gnu"

if [ -z "$BINARY" ]; then
    if [ "$chart" = 1 ]; then
        echo "==> ${release_build[*]} chartd"
        "${release_build[@]}" chartd
        BINARY=$("${release_build[@]}" --show-bin-path)/chartd
    elif [ "$PACKAGE_PATH" = . ]; then
        echo "==> ${release_build[*]} $PRODUCT"
        "${release_build[@]}" "$PRODUCT"
    else
        echo "==> ${release_build[*]} --package-path $PACKAGE_PATH $PRODUCT"
        "${release_build[@]}" --package-path "$PACKAGE_PATH" "$PRODUCT"
    fi
    [ "$chart" = 1 ] || BINARY=$("${release_build[@]}" --show-bin-path)/$PRODUCT
fi
[ -x "$BINARY" ] || die "$BINARY: no such executable; build it or leave out --binary"
# What runs the daemon: the binary, or for a chart controller chartd on its binding (as the
# package's /usr/bin/NAME will).
DAEMON_CMD=$BINARY
wrapper_dir=$(mktemp -d)
trap 'rm -rf "$wrapper_dir"' EXIT
if [ "$chart" = 1 ]; then
    . "$(dirname "$0")/lib/chart-command.sh"
    DAEMON_CMD=$wrapper_dir/$(chart_command "$PACKAGE_PATH" "$BINARY" "$wrapper_dir")
fi
machine=$(readelf -h "$BINARY" | sed -n 's/^ *Machine: *//p')
[ "$machine" = "$ELF_MACHINE" ] || die "$BINARY is built for \"$machine\", not $ARCH ($ELF_MACHINE)"
# A binary linking Swift's shared runtime would not start on a machine without the toolchain.
if readelf -d "$BINARY" | grep 'libswiftCore' >/dev/null; then
    die "$BINARY links Swift's runtime dynamically: build it with --static-swift-stdlib"
fi
# The binary names itself (its --help's USAGE line, as the man page does): a binary of another
# product given with --binary would install under the wrong name.
usage_name=$("$DAEMON_CMD" --help | sed -n 's/^USAGE: \([a-z][a-z0-9-]*\) .*/\1/p' | sed -n 1p)
[ -n "$usage_name" ] || die "$DAEMON_CMD --help has no \"USAGE: NAME ...\" line: not a controller's daemon"
[ "$usage_name" = "$PRODUCT" ] \
    || die "$BINARY is $usage_name, not $PRODUCT: give --product $usage_name, or the $PRODUCT binary with --binary"

VERSION=$("$DAEMON_CMD" --version)
[[ $VERSION =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] || die "$BINARY --version printed \"$VERSION\", not a version"

OUT=.build-deb
NAME=${PRODUCT}_${VERSION}_${ARCH}
ROOT=$OUT/$NAME
DEB=$OUT/$NAME.deb
rm -rf "$ROOT" "$DEB"
mkdir -p "$ROOT/DEBIAN"
echo "==> laying out $ROOT"

MAINTAINER=${DEB_MAINTAINER:-$(git log -1 --format='%an <%ae>' 2>/dev/null || echo "$PRODUCT maintainers <root@localhost>")}
# The copyright's years: the source's first and last commits.
# tail reads the whole stream: `head` would close the pipe early and git, under pipefail, fail with SIGPIPE.
first_year=$(git log --format=%ad --date=format:%Y 2>/dev/null | tail -n1)
last_year=$(git log -1 --format=%ad --date=format:%Y 2>/dev/null || date +%Y)
years=${first_year:-$last_year}
[ "$years" = "$last_year" ] || years="$years-$last_year"

# The shared templates, filled in for this product. Every @WORD@ must be known: a template
# growing a new one fails here rather than shipping it literally.
daemon_env=${PRODUCT^^}
daemon_env=${daemon_env//-/_}
sed_escape() { printf '%s' "$1" | sed -e 's/[\/&|\\]/\\&/g'; }
render() { # render TEMPLATE DESTINATION MODE
    local template=$1 destination=$2 mode=$3 sed_args=() key
    for key in DAEMON DAEMON_ENV THING SETTINGS_SECTION DATABASE_HOLDS HTTP_PORT UNIT_DESCRIPTION YEARS; do
        local value
        case $key in
            DAEMON) value=$PRODUCT ;;
            DAEMON_ENV) value=$daemon_env ;;
            YEARS) value=$years ;;
            *) value=${!key} ;;
        esac
        sed_args+=(-e "s|@$key@|$(sed_escape "$value")|g")
    done
    install -d "$(dirname "$destination")"
    sed "${sed_args[@]}" "$template" > "$destination"
    chmod "$mode" "$destination"
    if grep -o '@[A-Z_]*@' "$destination" >/dev/null; then
        die "$template: $(grep -o '@[A-Z_]*@' "$destination" | sort -u | tr '\n' ' ')is not filled in by scripts/package-deb.sh's render"
    fi
}

# The program. Debug information goes (it is most of the file's size); the symbol table
# stays, so a crash's backtrace in the journal names the functions.
install -d "$ROOT/usr/bin"
if [ "$chart" = 1 ]; then
    # chartd, and the command that runs it on the package's chart.
    elf=$ROOT/usr/lib/$PRODUCT/chartd
    install -d "$ROOT/usr/lib/$PRODUCT" "$ROOT/usr/share/$PRODUCT"
    "$strip" --strip-debug -o "$elf" "$BINARY"
    chmod 0755 "$elf"
    printf '#!/bin/sh\n# %s: the %s chart (/usr/share/%s), run as a controller by chartd.\nexec /usr/lib/%s/chartd --chart /usr/share/%s/%s "$@"\n' \
        "$PRODUCT" "$THING" "$PRODUCT" "$PRODUCT" "$PRODUCT" "$CHART_BINDING" > "$ROOT/usr/bin/$PRODUCT"
    chmod 0755 "$ROOT/usr/bin/$PRODUCT"
    # The chart, its binding and its scenarios; the boards go in boards/ below, where a binding's
    # `board = "boards/..."` finds them.
    find "$PACKAGE_PATH" -maxdepth 1 -type f \( -name '*.scxml' -o -name '*.toml' -o -name '*.scenario' \) \
        -exec install -m 0644 {} "$ROOT/usr/share/$PRODUCT/" \;
else
    elf=$ROOT/usr/bin/$PRODUCT
    "$strip" --strip-debug -o "$elf" "$BINARY"
    chmod 0755 "$elf"
fi

render packaging/daemon.service "$ROOT/lib/systemd/system/$PRODUCT.service" 0644
render packaging/60-daemon-gpio.rules "$ROOT/lib/udev/rules.d/60-$PRODUCT-gpio.rules" 0644

install -d "$ROOT/usr/share/$PRODUCT/boards"
install -m 0644 "$PACKAGE_PATH"/boards/*.toml "$ROOT/usr/share/$PRODUCT/boards/"

# The conffile: the simulated board, with a header saying how to configure the real one.
install -d "$ROOT/etc/$PRODUCT"
{
    cat <<EOF
# /etc/$PRODUCT/board.toml — the board the $PRODUCT service runs ($PRODUCT.service).
#
# As installed, this is the SIMULATED $THING (a copy of /usr/share/$PRODUCT/boards/sim.toml):
# the service runs harmlessly, driving no GPIO line, until you configure the real board:
#
#     sudo cp /usr/share/$PRODUCT/boards/$BOARD_EXAMPLE /etc/$PRODUCT/board.toml
#     sudo $PRODUCT check --board /etc/$PRODUCT/board.toml
#     sudo systemctl restart $PRODUCT
#
EOF
    printf '%s\n' "$BOARDS_NOTE" | sed 's/^/# /'
    echo "#"
    cat "$PACKAGE_PATH/boards/sim.toml"
} > "$ROOT/etc/$PRODUCT/board.toml"
chmod 0644 "$ROOT/etc/$PRODUCT/board.toml"
"$DAEMON_CMD" check --board "$ROOT/etc/$PRODUCT/board.toml" >/dev/null \
    || die "the generated $ROOT/etc/$PRODUCT/board.toml does not pass $PRODUCT check"
echo "/etc/$PRODUCT/board.toml" > "$ROOT/DEBIAN/conffiles"

install -d "$ROOT/usr/share/man/man8"
scripts/man-page.sh "$DAEMON_CMD" | gzip -9n > "$ROOT/usr/share/man/man8/$PRODUCT.8.gz"

render packaging/copyright "$ROOT/usr/share/doc/$PRODUCT/copyright" 0644
# A native package's changelog: which source it was built from (the history is git's).
{
    echo "$PRODUCT ($VERSION) unstable; urgency=medium"
    echo
    echo "  * Built from commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown) of ControllerFSM;"
    echo "    the changes are in its git history."
    echo
    echo " -- $MAINTAINER  $(git log -1 --format=%aD 2>/dev/null || date -R)"
} | gzip -9n > "$ROOT/usr/share/doc/$PRODUCT/changelog.gz"
# The symbol table stays in the binary on purpose (see strip above), which lintian flags.
render packaging/lintian-overrides "$ROOT/usr/share/lintian/overrides/$PRODUCT" 0644
# A chart controller's program is chartd, where /usr/bin/NAME (a script) runs it.
[ "$chart" = 0 ] || sed -i "s|\[usr/bin/$PRODUCT\]|[usr/lib/$PRODUCT/chartd]|" "$ROOT/usr/share/lintian/overrides/$PRODUCT"
# Uncompressed: the unit's Documentation= points at it.
install -m 0644 "$PACKAGE_PATH/README.md" "$ROOT/usr/share/doc/$PRODUCT/README.md"

for script in postinst prerm postrm; do
    render "packaging/debian/$script" "$ROOT/DEBIAN/$script" 0755
done

# dpkg-shlibdeps reads the package's name from a debian/control; a throwaway one will do.
shlibs_dir=$(mktemp -d)
trap 'rm -rf "$shlibs_dir" "$wrapper_dir"' EXIT
mkdir "$shlibs_dir/debian"
printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' "$PRODUCT" "$PRODUCT" > "$shlibs_dir/debian/control"
program=$PWD/$elf
if [ "$cross" = 1 ]; then
    # In the trixie arm64 root, where the libraries, their packages and symbols files are arm64's.
    inside=/tmp/package-deb-$$
    rm -rf "$ARM64_SYSROOT$inside"
    mkdir -p "$ARM64_SYSROOT$inside"
    cp -r "$shlibs_dir/debian" "$ARM64_SYSROOT$inside/"
    cp "$program" "$ARM64_SYSROOT$inside/$PRODUCT"
    shlibs=$(chroot "$ARM64_SYSROOT" /usr/bin/env -i PATH=/usr/bin:/bin sh -c "cd $inside && dpkg-shlibdeps -O ./$PRODUCT" 2>"$shlibs_dir/err") \
        || { rm -rf "${ARM64_SYSROOT:?}$inside"; die "dpkg-shlibdeps (in $ARM64_SYSROOT) failed: $(cat "$shlibs_dir/err")"; }
    rm -rf "${ARM64_SYSROOT:?}$inside"
else
    shlibs=$(cd "$shlibs_dir" && dpkg-shlibdeps -O "$program" 2>"$shlibs_dir/err") \
        || die "dpkg-shlibdeps failed: $(cat "$shlibs_dir/err")"
fi
# The generations in the order the binary prefers them (GpiodLibrary.Generation.preferred).
GPIOD_DEPENDS="libgpiod3 | libgpiod2"
# The count store's SQLite (CSQLite opens libsqlite3.so.0); Swift's own install needs it too.
SQLITE_DEPENDS="libsqlite3-0"
DEPENDS="adduser, $GPIOD_DEPENDS, $SQLITE_DEPENDS, ${shlibs#shlibs:Depends=}"
# A chart's loader opens libxml2.so.2 at run time, unseen by dpkg-shlibdeps as the others.
[ "$chart" = 0 ] || DEPENDS="$DEPENDS, libxml2"

INSTALLED_SIZE=$(du -sk --exclude=DEBIAN "$ROOT" | cut -f1)
{
    cat <<EOF
Package: $PRODUCT
Version: $VERSION
Architecture: $ARCH
Maintainer: $MAINTAINER
Installed-Size: $INSTALLED_SIZE
Depends: $DEPENDS
Recommends: udev
Suggests: libmosquitto1
Section: misc
Priority: optional
Description: $SUMMARY
EOF
    printf '%s\n' "$DESCRIPTION" | sed 's/^/ /'
} > "$ROOT/DEBIAN/control"

(cd "$ROOT" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z | xargs -0 md5sum) \
    > "$ROOT/DEBIAN/md5sums"

dpkg-deb --build --root-owner-group -Zxz "$ROOT" "$DEB" >/dev/null
echo "==> $DEB ($(du -h "$DEB" | cut -f1)): Depends: $DEPENDS"
