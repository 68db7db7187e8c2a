#!/usr/bin/env bash
# The .deb's installation test, on this machine (scripts/test.sh runs it; DEB=0 skips it there):
# builds the package (scripts/package-deb.sh, arguments passed on) or takes one with --deb FILE,
# then installs, upgrades, removes and purges it with dpkg and checks each step:
#   install   the user and groups, the unit (systemd-analyze verify accepts it, and it is
#             enabled), the udev rule, the boards, the conffile, the man page, the state
#             directory; the installed binary runs the simulated demo and checks the conffile,
#             as root and as the turnstiled user, also with the kernel's equivalent of the
#             unit's MemoryDenyWriteExecute= (prctl PR_SET_MDWE);
#   reinstall an edited conffile is kept;
#   remove    the program goes, the conffile and the user stay, the unit is masked;
#   purge     the user, groups, unit state and /etc/turnstiled go, the count database stays;
#   reinstall the kept database is handed to the new user;
#   purge     with TURNSTILED_PURGE_DATABASE=1 the database goes too, and the accounts and
#             systemd's state are exactly as before the test.
# Without systemd as PID 1 (a container, most CI machines) the service is not started, and the
# maintainer scripts must not fail because of that. Needs root (uses sudo otherwise); installs
# dpkg-dev, binutils, systemd, udev, adduser and libgpiod2 from apt when missing. Leaves the
# machine as it found it, also when a check fails; runs again as often as you like.
#
# Usage: scripts/test-deb.sh [--deb FILE | package-deb.sh options]
# shellcheck disable=SC2016 # the sh -c checks expand in their own shell, on purpose
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
as_root() { $SUDO "$@"; }

DEB=""
if [ "${1:-}" = --deb ]; then
    [ $# -eq 2 ] || { echo "usage: $0 [--deb FILE | package-deb.sh options]" >&2; exit 2; }
    DEB=$2
    shift 2
fi

failures=0
pass() { echo "  ok   $*"; }
fail() { echo "  FAIL $*" >&2; failures=$((failures + 1)); }
check() { # check DESCRIPTION COMMAND...: the command's success is the check
    local what=$1; shift
    if "$@" >/dev/null 2>&1; then pass "$what"; else fail "$what"; fi
}
refute() { # refute DESCRIPTION COMMAND...: the command's failure is the check
    local what=$1; shift
    if "$@" >/dev/null 2>&1; then fail "$what"; else pass "$what"; fi
}
die() { echo "test-deb: $*" >&2; exit 1; }

need_apt=()
command -v dpkg-shlibdeps >/dev/null 2>&1 || need_apt+=(dpkg-dev)
command -v readelf >/dev/null 2>&1 || need_apt+=(binutils)
command -v systemd-analyze >/dev/null 2>&1 || need_apt+=(systemd)
command -v udevadm >/dev/null 2>&1 || need_apt+=(udev)
command -v adduser >/dev/null 2>&1 || need_apt+=(adduser)
command -v man >/dev/null 2>&1 || need_apt+=(man-db)
dpkg -s libgpiod2 >/dev/null 2>&1 || dpkg -s libgpiod3 >/dev/null 2>&1 || need_apt+=(libgpiod2)
if [ ${#need_apt[@]} -gt 0 ]; then
    echo "==> installing ${need_apt[*]}"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if [ -z "$DEB" ]; then
    scripts/package-deb.sh "$@"
    # shellcheck disable=SC2012 # our own file names, newest first
    DEB=$(ls -t .build-deb/turnstiled_*_"$(dpkg --print-architecture)".deb | head -n1)
fi
[ -f "$DEB" ] || die "$DEB: no such package"

# Debian's package checker, where it is installed (it is large, so the test does not install
# it): no error or warning, the two deliberate ones being overridden in the package.
if command -v lintian >/dev/null 2>&1; then
    if out=$(lintian "$DEB" 2>&1 | grep -E '^[EW]: ') ; then
        fail "lintian: $out"
    else
        pass "lintian: no errors or warnings"
    fi
fi

# This test owns the package and its state directory while it runs: it never touches a real
# installation or a real count database.
if dpkg-query -W -f='${Status}' turnstiled 2>/dev/null | grep -qv 'not-installed'; then
    die "a turnstiled package is installed (or not purged) here; this test installs and purges its own. Purge it first: sudo dpkg --purge turnstiled"
fi
[ ! -e /var/lib/turnstiled ] \
    || die "/var/lib/turnstiled exists (a kept count database?); this test would hand it to a new user and delete it. Move it away first."

work=$(mktemp -d)
# The accounts and systemd's enablement state, to compare after the last purge.
snapshot() {
    as_root cat /etc/passwd /etc/group /etc/shadow /etc/gshadow
    as_root find /etc/systemd/system /var/lib/systemd/deb-systemd-helper-enabled \
        /var/lib/systemd/deb-systemd-helper-masked -name '*turnstiled*' 2>/dev/null || true
    ls /lib/udev/rules.d /etc/turnstiled /var/lib/turnstiled 2>/dev/null || true
}
snapshot > "$work/before"
gpio_group_before=$(getent group gpio >/dev/null && echo yes || echo no)

cleanup() {
    if dpkg-query -W -f='${Status}' turnstiled 2>/dev/null | grep -qv 'not-installed'; then
        echo "==> cleaning up: purging turnstiled" >&2
        as_root env TURNSTILED_PURGE_DATABASE=1 dpkg --purge turnstiled >/dev/null || true
    fi
    as_root rm -rf /var/lib/turnstiled /run/turnstiled
    rm -rf "$work"
}
trap cleanup EXIT

# The kernel's equivalent of MemoryDenyWriteExecute= (Linux 6.3 and later), as a wrapper.
mdwe=""
if cc -O2 -x c -o "$work/mdwe" - 2>/dev/null <<'EOF'
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>
#define PR_SET_MDWE_ 65
#define PR_MDWE_REFUSE_EXEC_GAIN_ 1UL
int main(int argc, char **argv) {
    if (argc < 2) return 2;
    if (prctl(PR_SET_MDWE_, PR_MDWE_REFUSE_EXEC_GAIN_, 0UL, 0UL, 0UL) != 0) { perror("prctl(PR_SET_MDWE)"); return 125; }
    execv(argv[1], argv + 1);
    perror("execv");
    return 126;
}
EOF
then
    if "$work/mdwe" /bin/true 2>/dev/null; then
        chmod 0755 "$work" "$work/mdwe"
        mdwe=$work/mdwe
    else
        echo "  note: this kernel has no PR_SET_MDWE (Linux < 6.3); MemoryDenyWriteExecute is not checked"
    fi
else
    echo "  note: no C compiler; MemoryDenyWriteExecute is not checked"
fi

as_turnstiled() { as_root runuser -u turnstiled -- "$@"; }
# How long the daemon must stay up, started from the unit's command line, to count as running:
# its self-test on the simulated board takes milliseconds; a refused flag or file exits at once.
DAEMON_SETTLE_S=3
UNIT=/lib/systemd/system/turnstiled.service

echo "==> dpkg -i $DEB"
as_root dpkg -i "$DEB" >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; die "dpkg -i failed"; }
check "dpkg says installed" sh -c "dpkg-query -W -f='\${Status}' turnstiled | grep -q 'install ok installed'"
check "user turnstiled: system account, home /var/lib/turnstiled, no login shell" \
    sh -c 'getent passwd turnstiled | grep -Eq "^turnstiled:x:[0-9]+:[0-9]+:[^:]*:/var/lib/turnstiled:/usr/sbin/nologin$" && [ "$(id -u turnstiled)" -lt 1000 ]'
check "group turnstiled is the user's group" sh -c '[ "$(id -gn turnstiled)" = turnstiled ]'
check "the user is in the group gpio" sh -c 'id -nG turnstiled | tr " " "\n" | grep -qx gpio'
check "state directory /var/lib/turnstiled: turnstiled:turnstiled 0750" \
    sh -c '[ "$(stat -c "%U:%G %a" /var/lib/turnstiled)" = "turnstiled:turnstiled 750" ]'
check "binary /usr/bin/turnstiled" test -x /usr/bin/turnstiled
check "unit $UNIT" test -f "$UNIT"
check "unit enabled (multi-user.target.wants)" test -L /etc/systemd/system/multi-user.target.wants/turnstiled.service
check "udev rule gives /dev/gpiochip* to gpio, 0660" \
    grep -q 'KERNEL=="gpiochip\*", GROUP="gpio", MODE="0660"' /lib/udev/rules.d/60-turnstiled-gpio.rules
for board in boards/*.toml; do
    check "board /usr/share/turnstiled/boards/${board#boards/}" cmp "$board" "/usr/share/turnstiled/boards/${board#boards/}"
done
check "conffile /etc/turnstiled/board.toml, registered with dpkg" \
    sh -c "dpkg-query -W -f='\${Conffiles}' turnstiled | grep -q '^ /etc/turnstiled/board.toml '"
check "conffile is the simulated board with instructions" \
    sh -c 'grep -q "^backend = \"sim\"" /etc/turnstiled/board.toml && grep -q "turnstiled check" /etc/turnstiled/board.toml'
check "man page turnstiled(8) lists every command" sh -c '
    for c in $(/usr/bin/turnstiled --help | awk "/^SUBCOMMANDS:/{on=1;next} on&&/^$/{exit} on&&/^  [a-z]/{print \$1}"); do
        zcat /usr/share/man/man8/turnstiled.8.gz | grep -q "^\.SS \"turnstiled $c\"" || exit 1
    done'
# man --warnings sends groff's complaints (bad escapes, unknown requests) to standard error.
check "man page renders without warnings" \
    sh -c '[ -z "$(MANWIDTH=100 man --warnings -l /usr/share/man/man8/turnstiled.8.gz 2>&1 >/dev/null)" ]'
check "copyright and README in /usr/share/doc/turnstiled" \
    test -f /usr/share/doc/turnstiled/copyright -a -f /usr/share/doc/turnstiled/README.md

# verify checks the unit's syntax, that ExecStart's binary and the man page exist, and the
# dependencies; it prints nothing when all is well.
if out=$(systemd-analyze verify "$UNIT" 2>&1) && [ -z "$out" ]; then
    pass "systemd-analyze verify $UNIT"
else
    fail "systemd-analyze verify $UNIT: $out"
fi
exposure=$(systemd-analyze security --offline=yes "$UNIT" 2>/dev/null | sed -n 's/.*Overall exposure level for turnstiled.service: //p' || true)
[ -z "$exposure" ] || echo "  info systemd-analyze security: exposure $exposure"

check "turnstiled simulate (the demo) as root" /usr/bin/turnstiled simulate
check "turnstiled simulate as the turnstiled user" as_turnstiled /usr/bin/turnstiled simulate
check "turnstiled check --board /etc/turnstiled/board.toml as the turnstiled user" \
    as_turnstiled /usr/bin/turnstiled check --board /etc/turnstiled/board.toml
if [ -n "$mdwe" ]; then
    check "turnstiled simulate with write-xor-execute memory (MemoryDenyWriteExecute)" \
        as_turnstiled "$mdwe" /usr/bin/turnstiled simulate
fi

# The unit's own command line, as the service's user, until SIGTERM: systemd-analyze does not
# know turnstiled's flags, this does. It waits for `turnstiled run` to have every flag the unit
# passes (they are being added); until then it says which are missing.
execstart=$(sed -n 's/^ExecStart=//p' "$UNIT")
missing=""
run_help=$(/usr/bin/turnstiled run --help 2>&1 || true)
for flag in $(printf '%s\n' "$execstart" | grep -o -- '--[a-z-]*'); do
    grep -q -- "$flag" <<<"$run_help" || missing="$missing $flag"
done
if [ -n "$missing" ]; then
    echo "  note: not running the unit's ExecStart: turnstiled run has no$missing yet"
else
    # What systemd would provide: the runtime directory (the state directory is postinst's).
    as_root install -d -o turnstiled -g turnstiled -m 0750 /run/turnstiled
    # setpriv execs (no process in between), so $! is the daemon and gets the signal itself.
    # Not through as_root: a shell function sent to the background is a subshell of its own,
    # and the signal would stop that instead, leaving the daemon running.
    root_exec=()
    [ "$(id -u)" -eq 0 ] || root_exec=(sudo)
    # shellcheck disable=SC2086 # the unit's command line, split into words as systemd does
    "${root_exec[@]}" setpriv --reuid turnstiled --regid turnstiled --init-groups $mdwe $execstart \
        >"$work/daemon.log" 2>&1 &
    daemon=$!
    sleep "$DAEMON_SETTLE_S"
    if kill -0 "$daemon" 2>/dev/null; then
        pass "the unit's ExecStart runs as turnstiled${mdwe:+ with write-xor-execute memory}"
        as_root kill -TERM "$daemon"
        status=0
        wait "$daemon" || status=$?
        if [ "$status" -eq 0 ]; then pass "it stops on SIGTERM with status 0"
        else fail "it stopped on SIGTERM with status $status: $(tail -n 5 "$work/daemon.log")"; fi
    else
        status=0
        wait "$daemon" || status=$?
        fail "the unit's ExecStart exited within ${DAEMON_SETTLE_S} s (status $status): $(tail -n 5 "$work/daemon.log")"
    fi
    as_root rm -rf /run/turnstiled
fi

echo "==> reinstall with an edited conffile"
as_root sh -c 'echo "# edited by test-deb.sh" >> /etc/turnstiled/board.toml'
as_root dpkg -i "$DEB" >"$work/reinstall.log" 2>&1 || { cat "$work/reinstall.log" >&2; die "dpkg -i (again) failed"; }
check "the edited conffile is kept" grep -q "edited by test-deb.sh" /etc/turnstiled/board.toml

echo "==> dpkg -r (remove, keep configuration)"
as_root install -o turnstiled -g turnstiled -m 0640 /dev/null /var/lib/turnstiled/counts.sqlite
as_root sh -c 'echo "money records" > /var/lib/turnstiled/counts.sqlite'
as_root dpkg -r turnstiled >"$work/remove.log" 2>&1 || { cat "$work/remove.log" >&2; die "dpkg -r failed"; }
refute "binary gone" test -e /usr/bin/turnstiled
refute "unit gone" test -e "$UNIT"
check "conffile kept" test -f /etc/turnstiled/board.toml
check "user kept" getent passwd turnstiled

echo "==> dpkg --purge"
as_root dpkg --purge turnstiled >"$work/purge.log" 2>&1 || { cat "$work/purge.log" >&2; die "dpkg --purge failed"; }
check "dpkg says not installed" sh -c "! dpkg-query -W -f='\${Status}' turnstiled 2>/dev/null | grep -q installed"
refute "user turnstiled gone" getent passwd turnstiled
refute "group turnstiled gone" getent group turnstiled
if [ "$gpio_group_before" = yes ]; then
    check "group gpio kept (it was there before)" getent group gpio
else
    refute "group gpio gone (the package created it)" getent group gpio
fi
refute "/etc/turnstiled gone" test -e /etc/turnstiled
refute "unit file gone" test -e "$UNIT"
refute "udev rule gone" test -e /lib/udev/rules.d/60-turnstiled-gpio.rules
refute "no enablement or mask left in /etc/systemd/system" \
    sh -c 'find /etc/systemd/system -name "turnstiled*" | grep -q .'
check "count database kept" grep -q "money records" /var/lib/turnstiled/counts.sqlite
check "purge said where the database is" grep -q "kept the count database" "$work/purge.log"

echo "==> dpkg -i over the kept database"
as_root dpkg -i "$DEB" >"$work/install2.log" 2>&1 || { cat "$work/install2.log" >&2; die "dpkg -i (over a kept database) failed"; }
check "the kept database belongs to the new turnstiled user" \
    sh -c '[ "$(stat -c %U:%G /var/lib/turnstiled/counts.sqlite)" = turnstiled:turnstiled ]'
refute "the purged conffile edit is gone (fresh conffile)" grep -q "edited by test-deb.sh" /etc/turnstiled/board.toml

echo "==> TURNSTILED_PURGE_DATABASE=1 dpkg --purge"
as_root env TURNSTILED_PURGE_DATABASE=1 dpkg --purge turnstiled >"$work/purge2.log" 2>&1 \
    || { cat "$work/purge2.log" >&2; die "dpkg --purge (with the database) failed"; }
refute "count database deleted on request" test -e /var/lib/turnstiled
snapshot > "$work/after"
if diff -u "$work/before" "$work/after" >"$work/diff"; then
    pass "accounts, systemd state and files exactly as before the test"
else
    fail "the machine differs from before the test:"; cat "$work/diff" >&2
fi

if [ "$failures" -ne 0 ]; then
    echo "test-deb: $failures check(s) failed" >&2
    exit 1
fi
echo "==> the .deb installs, upgrades, removes and purges cleanly"
