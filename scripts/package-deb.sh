#!/usr/bin/env bash
# Builds the turnstiled Debian package: .build-deb/turnstiled_<version>_<arch>.deb.
#
# Usage: scripts/package-deb.sh [--arch amd64|arm64] [--binary PATH]
#   --arch ARCH          the package's architecture; default this machine's (dpkg). Only the
#                        machine's own architecture can be built: see "arm64" below.
#   --binary PATH        package this turnstiled instead of building one (it must be a release
#                        build for ARCH, made with --static-swift-stdlib)
#                        (default: scripts/release-build.sh's, in .build, the build the HIL
#                        binaries come from too, so CI compiles it once)
#
# Contents: /usr/bin/turnstiled; the unit /lib/systemd/system/turnstiled.service and the udev
# rule /lib/udev/rules.d/60-turnstiled-gpio.rules (from packaging/); boards/*.toml under
# /usr/share/turnstiled/boards; the conffile /etc/turnstiled/board.toml, generated here from
# boards/sim.toml so a fresh installation runs the simulated turnstile until configured; the
# man page turnstiled(8) generated from the binary's --help (scripts/man-page.sh); README and
# copyright under /usr/share/doc/turnstiled; the maintainer scripts from packaging/debian/.
# Depends: computed by dpkg-shlibdeps from the libraries the binary links (libc6, libstdc++6,
# libgcc-s1, libgpiod2 on Debian 12 — libgpiod 1.6 —, and whatever it links later), plus
# adduser for postinst.
#
# arm64: Swift's toolchain here has the standard library for x86_64 only and no Swift SDK for
# aarch64 (`swift sdk list`), and dpkg-shlibdeps would need arm64 libraries installed, so an
# arm64 package is built on an arm64 machine (a Raspberry Pi 4/5 with a 64-bit OS) with this
# same script; on another machine --arch arm64 says so and exits with status 1.
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

ARCH=""
BINARY=""
while [ $# -gt 0 ]; do
    case $1 in
        --arch) [ $# -ge 2 ] || usage; ARCH=$2; shift 2 ;;
        --binary) [ $# -ge 2 ] || usage; BINARY=$2; shift 2 ;;
        -h|--help) usage 0 ;;
        *) usage ;;
    esac
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
if [ "$ARCH" != "$HOST_ARCH" ]; then
    sdks=$(swift sdk list 2>&1 || true)
    die "cannot build an $ARCH package on this $HOST_ARCH machine: the Swift toolchain here has" \
        "no $ARCH standard library (swift sdk list: ${sdks//$'\n'/; }), and the package's" \
        "dependencies are computed from $ARCH libraries that are not installed. Run this same" \
        "script on an $ARCH machine (for arm64: a Raspberry Pi 4 or 5 with 64-bit Raspberry Pi" \
        "OS or Debian; see README.md, \"Installing on a Raspberry Pi from the .deb\")."
fi

if [ -z "$BINARY" ]; then
    echo "==> scripts/release-build.sh turnstiled"
    scripts/release-build.sh turnstiled
    BINARY=$(swift build -c release --static-swift-stdlib --show-bin-path)/turnstiled
fi
[ -x "$BINARY" ] || die "$BINARY: no such executable; build it or leave out --binary"
machine=$(readelf -h "$BINARY" | sed -n 's/^ *Machine: *//p')
[ "$machine" = "$ELF_MACHINE" ] || die "$BINARY is built for \"$machine\", not $ARCH ($ELF_MACHINE)"
# A binary linking Swift's shared runtime would not start on a machine without the toolchain.
if readelf -d "$BINARY" | grep 'libswiftCore' >/dev/null; then
    die "$BINARY links Swift's runtime dynamically: build it with --static-swift-stdlib"
fi

VERSION=$("$BINARY" --version)
[[ $VERSION =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] || die "$BINARY --version printed \"$VERSION\", not a version"

OUT=.build-deb
NAME=turnstiled_${VERSION}_${ARCH}
ROOT=$OUT/$NAME
DEB=$OUT/$NAME.deb
rm -rf "$ROOT" "$DEB"
mkdir -p "$ROOT/DEBIAN"
echo "==> laying out $ROOT"

# The program. Debug information goes (it is most of the file's size); the symbol table
# stays, so a crash's backtrace in the journal names the functions.
install -d "$ROOT/usr/bin"
strip --strip-debug -o "$ROOT/usr/bin/turnstiled" "$BINARY"
chmod 0755 "$ROOT/usr/bin/turnstiled"

install -D -m 0644 packaging/turnstiled.service "$ROOT/lib/systemd/system/turnstiled.service"
install -D -m 0644 packaging/60-turnstiled-gpio.rules "$ROOT/lib/udev/rules.d/60-turnstiled-gpio.rules"

install -d "$ROOT/usr/share/turnstiled/boards"
install -m 0644 boards/*.toml "$ROOT/usr/share/turnstiled/boards/"

# The conffile: the simulated board, with a header saying how to configure the real one.
install -d "$ROOT/etc/turnstiled"
{
    cat <<'EOF'
# /etc/turnstiled/board.toml — the board the turnstiled service runs (turnstiled.service).
#
# As installed, this is the SIMULATED turnstile (a copy of /usr/share/turnstiled/boards/sim.toml):
# the service runs harmlessly, driving no GPIO line, until you configure the real board:
#
#     sudo cp /usr/share/turnstiled/boards/raspberry-pi-4.toml /etc/turnstiled/board.toml
#     sudo turnstiled check --board /etc/turnstiled/board.toml
#     sudo systemctl restart turnstiled
#
# Boards shipped in /usr/share/turnstiled/boards: raspberry-pi-1-3.toml, raspberry-pi-4.toml,
# raspberry-pi-5.toml, and generic.toml (a commented template for any other board; `turnstiled
# lines` lists the chips and lines there are). This file is a conffile: upgrades keep your
# version (dpkg asks when the packaged one changed); `systemctl reload turnstiled` re-reads
# its [turnstile] timings without a restart.
#
EOF
    cat boards/sim.toml
} > "$ROOT/etc/turnstiled/board.toml"
chmod 0644 "$ROOT/etc/turnstiled/board.toml"
"$BINARY" check --board "$ROOT/etc/turnstiled/board.toml" >/dev/null \
    || die "the generated $ROOT/etc/turnstiled/board.toml does not pass turnstiled check"
echo /etc/turnstiled/board.toml > "$ROOT/DEBIAN/conffiles"

install -d "$ROOT/usr/share/man/man8"
scripts/man-page.sh "$BINARY" | gzip -9n > "$ROOT/usr/share/man/man8/turnstiled.8.gz"

MAINTAINER=${DEB_MAINTAINER:-$(git log -1 --format='%an <%ae>' 2>/dev/null || echo "turnstiled maintainers <root@localhost>")}
# The copyright's years: the source's first and last commits.
# tail reads the whole stream: `head` would close the pipe early and git, under pipefail, fail with SIGPIPE.
first_year=$(git log --format=%ad --date=format:%Y 2>/dev/null | tail -n1)
last_year=$(git log -1 --format=%ad --date=format:%Y 2>/dev/null || date +%Y)
years=${first_year:-$last_year}
[ "$years" = "$last_year" ] || years="$years-$last_year"
install -d "$ROOT/usr/share/doc/turnstiled"
sed "s/@YEARS@/$years/" packaging/copyright > "$ROOT/usr/share/doc/turnstiled/copyright"
chmod 0644 "$ROOT/usr/share/doc/turnstiled/copyright"
# A native package's changelog: which source it was built from (the history is git's).
{
    echo "turnstiled ($VERSION) unstable; urgency=medium"
    echo
    echo "  * Built from commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown) of ControllerFSM;"
    echo "    the changes are in its git history."
    echo
    echo " -- $MAINTAINER  $(git log -1 --format=%aD 2>/dev/null || date -R)"
} | gzip -9n > "$ROOT/usr/share/doc/turnstiled/changelog.gz"
# The symbol table stays in the binary on purpose (see strip above), which lintian flags.
install -D -m 0644 packaging/lintian-overrides "$ROOT/usr/share/lintian/overrides/turnstiled"
# Uncompressed: the unit's Documentation= points at it.
install -m 0644 README.md "$ROOT/usr/share/doc/turnstiled/README.md"

for script in postinst prerm postrm; do
    install -m 0755 "packaging/debian/$script" "$ROOT/DEBIAN/$script"
done

# dpkg-shlibdeps reads the package's name from a debian/control; a throwaway one will do.
shlibs_dir=$(mktemp -d)
trap 'rm -rf "$shlibs_dir"' EXIT
mkdir "$shlibs_dir/debian"
printf 'Source: turnstiled\n\nPackage: turnstiled\nArchitecture: any\n' > "$shlibs_dir/debian/control"
program=$PWD/$ROOT/usr/bin/turnstiled
shlibs=$(cd "$shlibs_dir" && dpkg-shlibdeps -O "$program" 2>"$shlibs_dir/err") \
    || die "dpkg-shlibdeps failed: $(cat "$shlibs_dir/err")"
DEPENDS="adduser, ${shlibs#shlibs:Depends=}"

INSTALLED_SIZE=$(du -sk --exclude=DEBIAN "$ROOT" | cut -f1)
cat > "$ROOT/DEBIAN/control" <<EOF
Package: turnstiled
Version: $VERSION
Architecture: $ARCH
Maintainer: $MAINTAINER
Installed-Size: $INSTALLED_SIZE
Depends: $DEPENDS
Recommends: udev
Section: misc
Priority: optional
Description: coin-operated turnstile controller over GPIO (libgpiod)
 turnstiled runs a coin-operated turnstile from a Linux board's GPIO lines
 (libgpiod) or on a simulated chip: coin and push inputs, lock, alarm, ready
 and coin-inhibit outputs, debounced, with a state machine that never loses a
 coin. This package runs it as a sandboxed systemd service (turnstiled.service)
 under its own user; the board is configured in /etc/turnstiled/board.toml
 (the simulated board until you choose one from /usr/share/turnstiled/boards).
EOF

(cd "$ROOT" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z | xargs -0 md5sum) \
    > "$ROOT/DEBIAN/md5sums"

dpkg-deb --build --root-owner-group -Zxz "$ROOT" "$DEB" >/dev/null
echo "==> $DEB ($(du -h "$DEB" | cut -f1)): Depends: $DEPENDS"
