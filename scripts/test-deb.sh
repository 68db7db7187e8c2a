#!/usr/bin/env bash
# The .deb's installation test, on this machine (scripts/test.sh runs it; DEB=0 skips it there):
# builds every controller's package (scripts/package-deb.sh --product NAME: turnstiled, then
# each application under Examples/ with a packaging/product.conf, barrierd today) or takes the
# ones given with --deb FILE, then, for each package alone, installs, upgrades, removes and
# purges it with dpkg and checks each step:
#   install   the user and groups, the unit (systemd-analyze verify accepts it, and it is
#             enabled), the udev rule, the boards, the conffile, the man page, the state
#             directory; the installed binary runs the simulated demo and checks the conffile,
#             as root and as the daemon's user, also with the kernel's equivalent of the
#             unit's MemoryDenyWriteExecute= (prctl PR_SET_MDWE); the unit's ExecStart runs as
#             the daemon's user until SIGTERM (when the binary has `run` with every flag the
#             unit passes; until then it says what is missing);
#   reinstall an edited conffile is kept;
#   remove    the program goes, the conffile and the user stay, the unit is masked;
#   purge     the user, groups, unit state and /etc/NAME go, the count database stays;
#   reinstall the kept database is handed to the new user;
#   purge     with NAME_PURGE_DATABASE=1 (TURNSTILED_PURGE_DATABASE, ...) the database goes too.
# Then, with two packages or more, side by side: all installed at once (distinct users, groups,
# paths, units, rules and status ports; their ExecStarts run together), the first purged while
# the others stay (they keep the gpio group and their access to it), then the rest; and the
# accounts and systemd's state are exactly as before the test.
# Without systemd as PID 1 (a container, most CI machines) the service is not started, and the
# maintainer scripts must not fail because of that. Needs root (uses sudo otherwise); installs
# dpkg-dev, binutils, systemd, udev, adduser and libgpiod2 from apt when missing. Leaves the
# machine as it found it, also when a check fails; runs again as often as you like.
#
# Usage: scripts/test-deb.sh                          every controller's package, built here
#        scripts/test-deb.sh --prebuilt               every controller's package, made from the
#                                                     release binaries scripts/release-build.sh
#                                                     left in each package's .build (package-deb.sh
#                                                     --binary: scripts/test.sh builds them once)
#        scripts/test-deb.sh --deb FILE [--deb FILE]  these packages
#        scripts/test-deb.sh [package-deb.sh options] one package built with these options
#                                                     (--product NAME: which; default turnstiled)
# shellcheck disable=SC2016 # the sh -c checks expand in their own shell, on purpose
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
as_root() { $SUDO "$@"; }

usage() { echo "usage: $0 [--deb FILE]... | --prebuilt | [package-deb.sh options]" >&2; exit 2; }
PREBUILT=0
if [ "${1:-}" = --prebuilt ]; then
    [ $# -eq 1 ] || usage
    PREBUILT=1
    shift
fi
DEBS=()
while [ "${1:-}" = --deb ]; do
    [ $# -ge 2 ] || usage
    DEBS+=("$2")
    shift 2
done
[ ${#DEBS[@]} -eq 0 ] || [ $# -eq 0 ] || usage

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

# What it needs, and why, is declared in scripts/lib/packages.sh (check "deb"); scripts/test.sh
# installs it up front, before its lanes run in parallel, so there this finds nothing missing.
# shellcheck source=scripts/lib/packages.sh
. scripts/lib/packages.sh
packages_ensure deb

arch=$(dpkg --print-architecture)
if [ ${#DEBS[@]} -eq 0 ]; then
    if [ $# -gt 0 ]; then
        # One package, as package-deb.sh makes it with these options.
        product=turnstiled
        for ((i = 1; i < $#; i++)); do
            [ "${!i}" != --product ] || { j=$((i + 1)); product=${!j}; }
        done
        scripts/package-deb.sh "$@"
        products=("$product")
    else
        # Every controller: turnstiled, then each package under Examples/ that describes a .deb,
        # then each chart controller under Examples/Charts.
        products=(turnstiled)
        for conf in Examples/*/packaging/product.conf Examples/Charts/*/packaging/product.conf; do
            [ -f "$conf" ] || continue
            # shellcheck disable=SC1090 # a product's own description, read as package-deb.sh does
            products+=("$(. "$conf" && echo "$PRODUCT")")
        done
        for product in "${products[@]}"; do
            if [ "$PREBUILT" = 1 ]; then
                package=$(scripts/product-package.sh "$product")
                binary=$(scripts/release-build.sh --show-bin-path)/$product
                # A chart controller's binary is chartd.
                # shellcheck disable=SC1091 # a product's own description
                if [ -n "$(CHART_BINDING="" && . "$package/packaging/product.conf" && echo "$CHART_BINDING")" ]; then
                    binary=$(scripts/release-build.sh --show-bin-path)/chartd
                fi
                [ -x "$binary" ] || die "--prebuilt: $binary is not built (scripts/release-build.sh --package-path $package $product, or chartd for a chart)"
                scripts/package-deb.sh --product "$product" --binary "$binary"
            else
                scripts/package-deb.sh --product "$product"
            fi
        done
    fi
    for product in "${products[@]}"; do
        # shellcheck disable=SC2012 # our own file names, newest first
        DEBS+=("$(ls -t .build-deb/"$product"_*_"$arch".deb | sed -n 1p)")
    done
fi
PRODUCTS=()
for deb in "${DEBS[@]}"; do
    [ -f "$deb" ] || die "$deb: no such package"
    PRODUCTS+=("$(dpkg-deb -f "$deb" Package)")
done

# Debian's package checker, where it is installed (it is large, so the test does not install
# it): no error or warning, the two deliberate ones being overridden in the package.
if command -v lintian >/dev/null 2>&1; then
    for deb in "${DEBS[@]}"; do
        if out=$(lintian "$deb" 2>&1 | grep -E '^[EW]: ') ; then
            fail "lintian $deb: $out"
        else
            pass "lintian $deb: no errors or warnings"
        fi
    done
fi

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -v 'not-installed' >/dev/null; }

# This test owns the packages and their state directories while it runs: it never touches a
# real installation or a real count database.
for p in "${PRODUCTS[@]}"; do
    ! installed "$p" \
        || die "a $p package is installed (or not purged) here; this test installs and purges its own. Purge it first: sudo dpkg --purge $p"
    [ ! -e "/var/lib/$p" ] \
        || die "/var/lib/$p exists (a kept count database?); this test would hand it to a new user and delete it. Move it away first."
done

work=$(mktemp -d)
# The accounts, systemd's enablement state and the packages' places, to compare after the
# last purge (/var/lib/controllerfsm: the gpio group's marker the packages share).
snapshot() {
    local p
    as_root cat /etc/passwd /etc/group /etc/shadow /etc/gshadow
    ls /lib/udev/rules.d /var/lib/controllerfsm 2>/dev/null || true
    for p in "${PRODUCTS[@]}"; do
        as_root find /etc/systemd/system /var/lib/systemd/deb-systemd-helper-enabled \
            /var/lib/systemd/deb-systemd-helper-masked -name "*$p*" 2>/dev/null || true
        ls "/etc/$p" "/var/lib/$p" 2>/dev/null || true
    done
}
snapshot > "$work/before"
gpio_group_before=$(getent group gpio >/dev/null && echo yes || echo no)

purge_variable() { local v=${1^^}; echo "${v//-/_}_PURGE_DATABASE"; }
daemons=()
cleanup() {
    local p pid
    for pid in "${daemons[@]}"; do as_root kill -KILL "$pid" 2>/dev/null || true; done
    for p in "${PRODUCTS[@]}"; do
        if installed "$p"; then
            echo "==> cleaning up: purging $p" >&2
            as_root env "$(purge_variable "$p")=1" dpkg --purge "$p" >/dev/null || true
        fi
        as_root rm -rf "/var/lib/$p" "/run/$p"
    done
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

as_user() { local user=$1; shift; as_root runuser -u "$user" -- "$@"; }
# How long a daemon must stay up, started from the unit's command line, to count as running:
# its self-test on the simulated board takes milliseconds; a refused flag or file exits at once.
DAEMON_SETTLE_S=3

# runnable P: whether the installed P's unit can be run here: its binary has `run` (an
# application's command line may not have it yet) with every flag the unit passes. Says what
# is missing when not.
runnable() {
    local p=$1 execstart run_help missing="" flag
    execstart=$(sed -n 's/^ExecStart=//p' "/lib/systemd/system/$p.service")
    # `P help run` exits 0 for a command P does not have (it prints the overview); `run --help`
    # exits 64 then.
    if ! run_help=$("/usr/bin/$p" run --help 2>&1); then
        echo "  note: not running $p's ExecStart: $p has no run command yet"
        return 1
    fi
    for flag in $(printf '%s\n' "$execstart" | grep -o -- '--[a-z-]*'); do
        grep -q -- "$flag" <<<"$run_help" || missing="$missing $flag"
    done
    if [ -n "$missing" ]; then
        echo "  note: not running $p's ExecStart: $p run has no$missing yet"
        return 1
    fi
}
# start_daemon P: the unit's own command line, as the service's user, in the background
# (systemd-analyze does not know the daemon's flags, this does); its process id in daemon_pid.
start_daemon() {
    local p=$1 execstart root_exec=()
    execstart=$(sed -n 's/^ExecStart=//p' "/lib/systemd/system/$p.service")
    # What systemd would provide: the runtime directory (the state directory is postinst's).
    as_root install -d -o "$p" -g "$p" -m 0750 "/run/$p"
    # setpriv execs (no process in between), so the pid is the daemon's and it gets the signal
    # itself. Not through as_root: a shell function sent to the background is a subshell of its
    # own, and the signal would stop that instead, leaving the daemon running.
    [ "$(id -u)" -eq 0 ] || root_exec=(sudo)
    # shellcheck disable=SC2086 # the unit's command line, split into words as systemd does
    "${root_exec[@]}" setpriv --reuid "$p" --regid "$p" --init-groups $mdwe $execstart \
        >"$work/$p-daemon.log" 2>&1 &
    daemon_pid=$!
    daemons+=("$daemon_pid")
}
# stop_daemon P PID: checks that it is still running, then that SIGTERM stops it with status 0.
stop_daemon() {
    local p=$1 pid=$2 status=0
    if kill -0 "$pid" 2>/dev/null; then
        pass "$p's unit's ExecStart runs as $p${mdwe:+ with write-xor-execute memory}"
        as_root kill -TERM "$pid"
        wait "$pid" || status=$?
        if [ "$status" -eq 0 ]; then pass "$p stops on SIGTERM with status 0"
        else fail "$p stopped on SIGTERM with status $status: $(tail -n 5 "$work/$p-daemon.log")"; fi
    else
        wait "$pid" || status=$?
        fail "$p's unit's ExecStart exited within ${DAEMON_SETTLE_S} s (status $status): $(tail -n 5 "$work/$p-daemon.log")"
    fi
    as_root rm -rf "/run/$p"
}

# test_package DEB: one package alone, from installation to the purge of its database.
test_package() {
    local deb=$1 p unit package_path board purge
    p=$(dpkg-deb -f "$deb" Package)
    unit=/lib/systemd/system/$p.service
    purge=$(purge_variable "$p")
    package_path=$(scripts/product-package.sh "$p")

    echo "==> $p: dpkg -i $deb"
    as_root dpkg -i "$deb" >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; die "dpkg -i $deb failed"; }
    check "dpkg says installed" sh -c "dpkg-query -W -f='\${Status}' $p | grep -q 'install ok installed'"
    check "user $p: system account, home /var/lib/$p, no login shell" \
        sh -c "getent passwd $p | grep -Eq '^$p:x:[0-9]+:[0-9]+:[^:]*:/var/lib/$p:/usr/sbin/nologin\$' && [ \"\$(id -u $p)\" -lt 1000 ]"
    check "group $p is the user's group" sh -c "[ \"\$(id -gn $p)\" = $p ]"
    check "the user is in the group gpio" sh -c "id -nG $p | tr ' ' '\n' | grep -qx gpio"
    check "state directory /var/lib/$p: $p:$p 0750" \
        sh -c "[ \"\$(stat -c '%U:%G %a' /var/lib/$p)\" = '$p:$p 750' ]"
    check "binary /usr/bin/$p" test -x "/usr/bin/$p"
    # The program: /usr/bin/P, or for a chart controller chartd, which /usr/bin/P runs on the chart.
    local elf=/usr/bin/$p
    if [ -e "/usr/lib/$p/chartd" ]; then
        elf=/usr/lib/$p/chartd
        check "a chart controller: /usr/bin/$p runs $elf on the chart in /usr/share/$p" \
            sh -c "grep -q '^exec $elf --chart /usr/share/$p/' /usr/bin/$p && readelf -h $elf >/dev/null"
        check "Depends: libxml2 (the chart's loader opens it at run time)" sh -c "dpkg-deb -f '$deb' Depends | grep -q 'libxml2'"
    fi
    # One binary for both libgpiod generations: it links neither, and the package asks for one.
    refute "the binary links no libgpiod (it opens one at run time)" sh -c "readelf -d $elf | grep -q 'NEEDED.*libgpiod'"
    check "Depends: libgpiod3 | libgpiod2" sh -c "dpkg-deb -f '$deb' Depends | grep -q 'libgpiod3 | libgpiod2'"
    # SQLite likewise: the count store opens libsqlite3.so.0 at run time, and the package asks for it.
    refute "the binary links no libsqlite3 (the store opens it at run time)" sh -c "readelf -d $elf | grep -q 'NEEDED.*libsqlite3'"
    check "Depends: libsqlite3-0" sh -c "dpkg-deb -f '$deb' Depends | grep -q 'libsqlite3-0'"
    check "$p lines names the libgpiod it found" sh -c "/usr/bin/$p lines 2>&1 | grep -q '^libgpiod [0-9.]* (libgpiod.so.[23])'"
    check "unit $unit" test -f "$unit"
    check "unit enabled (multi-user.target.wants)" test -L "/etc/systemd/system/multi-user.target.wants/$p.service"
    check "udev rule gives /dev/gpiochip* to gpio, 0660" \
        grep -q 'KERNEL=="gpiochip\*", GROUP="gpio", MODE="0660"' "/lib/udev/rules.d/60-$p-gpio.rules"
    for board in "$package_path"/boards/*.toml; do
        check "board /usr/share/$p/boards/${board##*/}" cmp "$board" "/usr/share/$p/boards/${board##*/}"
    done
    check "conffile /etc/$p/board.toml, registered with dpkg" \
        sh -c "dpkg-query -W -f='\${Conffiles}' $p | grep -q '^ /etc/$p/board.toml '"
    check "conffile is the simulated board with instructions" \
        sh -c "grep -q '^backend = \"sim\"' /etc/$p/board.toml && grep -q '$p check' /etc/$p/board.toml"
    check "man page $p(8) lists every command" sh -c "
        for c in \$(/usr/bin/$p --help | awk '/^SUBCOMMANDS:/{on=1;next} on&&/^\$/{on=0;done=1} on&&!done&&/^  [a-z]/{print \$1}'); do
            zcat /usr/share/man/man8/$p.8.gz | grep >/dev/null \"^\\.SS \\\"$p \$c\\\"\" || exit 1
        done"
    # man --warnings sends groff's complaints (bad escapes, unknown requests) to standard error.
    check "man page renders without warnings" \
        sh -c "[ -z \"\$(MANWIDTH=100 man --warnings -l /usr/share/man/man8/$p.8.gz 2>&1 >/dev/null)\" ]"
    check "copyright and README in /usr/share/doc/$p" \
        test -f "/usr/share/doc/$p/copyright" -a -f "/usr/share/doc/$p/README.md"

    # verify checks the unit's syntax, that ExecStart's binary and the man page exist, and the
    # dependencies; it prints nothing when all is well.
    if out=$(systemd-analyze verify "$unit" 2>&1) && [ -z "$out" ]; then
        pass "systemd-analyze verify $unit"
    else
        fail "systemd-analyze verify $unit: $out"
    fi
    exposure=$(systemd-analyze security --offline=yes "$unit" 2>/dev/null | sed -n "s/.*Overall exposure level for $p.service: //p" || true)
    [ -z "$exposure" ] || echo "  info systemd-analyze security: exposure $exposure"

    check "$p simulate (the demo) as root" "/usr/bin/$p" simulate
    check "$p simulate as the $p user" as_user "$p" "/usr/bin/$p" simulate
    check "$p check --board /etc/$p/board.toml as the $p user" \
        as_user "$p" "/usr/bin/$p" check --board "/etc/$p/board.toml"
    if [ -n "$mdwe" ]; then
        check "$p simulate with write-xor-execute memory (MemoryDenyWriteExecute)" \
            as_user "$p" "$mdwe" "/usr/bin/$p" simulate
    fi

    if runnable "$p"; then
        start_daemon "$p"
        sleep "$DAEMON_SETTLE_S"
        stop_daemon "$p" "$daemon_pid"
    fi

    echo "==> $p: reinstall with an edited conffile"
    as_root sh -c "echo '# edited by test-deb.sh' >> /etc/$p/board.toml"
    as_root dpkg -i "$deb" >"$work/reinstall.log" 2>&1 || { cat "$work/reinstall.log" >&2; die "dpkg -i $deb (again) failed"; }
    check "the edited conffile is kept" grep -q "edited by test-deb.sh" "/etc/$p/board.toml"

    echo "==> $p: dpkg -r (remove, keep configuration)"
    as_root install -o "$p" -g "$p" -m 0640 /dev/null "/var/lib/$p/counts.sqlite"
    as_root sh -c "echo 'money records' > /var/lib/$p/counts.sqlite"
    as_root dpkg -r "$p" >"$work/remove.log" 2>&1 || { cat "$work/remove.log" >&2; die "dpkg -r $p failed"; }
    refute "binary gone" test -e "/usr/bin/$p"
    [ "$elf" = "/usr/bin/$p" ] || refute "$elf gone" test -e "$elf"
    refute "unit gone" test -e "$unit"
    check "conffile kept" test -f "/etc/$p/board.toml"
    check "user kept" getent passwd "$p"

    echo "==> $p: dpkg --purge"
    as_root dpkg --purge "$p" >"$work/purge.log" 2>&1 || { cat "$work/purge.log" >&2; die "dpkg --purge $p failed"; }
    check "dpkg says not installed" sh -c "! dpkg-query -W -f='\${Status}' $p 2>/dev/null | grep -q installed"
    refute "user $p gone" getent passwd "$p"
    refute "group $p gone" getent group "$p"
    if [ "$gpio_group_before" = yes ]; then
        check "group gpio kept (it was there before)" getent group gpio
    else
        refute "group gpio gone (the package created it)" getent group gpio
    fi
    refute "/etc/$p gone" test -e "/etc/$p"
    refute "unit file gone" test -e "$unit"
    refute "udev rule gone" test -e "/lib/udev/rules.d/60-$p-gpio.rules"
    refute "no enablement or mask left in /etc/systemd/system" \
        sh -c "find /etc/systemd/system -name '$p*' | grep -q ."
    check "count database kept" grep -q "money records" "/var/lib/$p/counts.sqlite"
    check "purge said where the database is" grep -q "kept the count database" "$work/purge.log"

    echo "==> $p: dpkg -i over the kept database"
    as_root dpkg -i "$deb" >"$work/install2.log" 2>&1 || { cat "$work/install2.log" >&2; die "dpkg -i $deb (over a kept database) failed"; }
    check "the kept database belongs to the new $p user" \
        sh -c "[ \"\$(stat -c %U:%G /var/lib/$p/counts.sqlite)\" = $p:$p ]"
    refute "the purged conffile edit is gone (fresh conffile)" grep -q "edited by test-deb.sh" "/etc/$p/board.toml"

    echo "==> $p: $purge=1 dpkg --purge"
    as_root env "$purge=1" dpkg --purge "$p" >"$work/purge2.log" 2>&1 \
        || { cat "$work/purge2.log" >&2; die "dpkg --purge $p (with the database) failed"; }
    refute "count database deleted on request" test -e "/var/lib/$p"
}

# test_side_by_side DEB...: every package installed at once, then purged one by one.
test_side_by_side() {
    local deb p first others=() ports pids=()
    echo "==> side by side: ${PRODUCTS[*]}"
    for deb in "$@"; do
        as_root dpkg -i "$deb" >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; die "dpkg -i $deb (beside the others) failed"; }
    done
    for p in "${PRODUCTS[@]}"; do
        check "$p installed, its user in gpio" sh -c "id -nG $p | tr ' ' '\n' | grep -qx gpio"
        check "$p check --board /etc/$p/board.toml as the $p user" \
            as_user "$p" "/usr/bin/$p" check --board "/etc/$p/board.toml"
    done
    ports=$(for p in "${PRODUCTS[@]}"; do sed -n 's/^ExecStart=.*--http \([^ ]*\).*/\1/p' "/lib/systemd/system/$p.service"; done)
    check "each unit's status page on its own address ($(echo $ports))" \
        sh -c "[ \"\$(printf '%s\n' $(echo $ports) | sort -u | wc -l)\" -eq ${#PRODUCTS[@]} ]"
    # The daemons that can run, all at once: their sockets, databases and ports must not meet.
    for p in "${PRODUCTS[@]}"; do
        if runnable "$p"; then start_daemon "$p"; pids+=("$p:$daemon_pid"); fi
    done
    if [ ${#pids[@]} -gt 0 ]; then
        sleep "$DAEMON_SETTLE_S"
        for p in "${pids[@]}"; do stop_daemon "${p%%:*}" "${p#*:}"; done
    fi

    first=${PRODUCTS[0]}
    others=("${PRODUCTS[@]:1}")
    echo "==> side by side: $(purge_variable "$first")=1 dpkg --purge $first, the others stay"
    as_root env "$(purge_variable "$first")=1" dpkg --purge "$first" >"$work/purge.log" 2>&1 \
        || { cat "$work/purge.log" >&2; die "dpkg --purge $first (beside the others) failed"; }
    refute "user $first gone" getent passwd "$first"
    check "group gpio kept (the others' users are in it)" getent group gpio
    for p in "${others[@]}"; do
        check "$p still installed, its user still in gpio" \
            sh -c "dpkg-query -W -f='\${Status}' $p | grep -q 'install ok installed' && id -nG $p | tr ' ' '\n' | grep -qx gpio"
        check "$p's udev rule still there" test -f "/lib/udev/rules.d/60-$p-gpio.rules"
        check "$p check --board /etc/$p/board.toml as the $p user" \
            as_user "$p" "/usr/bin/$p" check --board "/etc/$p/board.toml"
    done
    check "the purge said why gpio stays" grep -q "kept the group gpio" "$work/purge.log"
    for p in "${others[@]}"; do
        as_root env "$(purge_variable "$p")=1" dpkg --purge "$p" >"$work/purge.log" 2>&1 \
            || { cat "$work/purge.log" >&2; die "dpkg --purge $p (after $first) failed"; }
    done
    if [ "$gpio_group_before" = yes ]; then
        check "after the last purge: group gpio kept (it was there before)" getent group gpio
    else
        refute "after the last purge: group gpio gone (the packages created it)" getent group gpio
    fi
}

for deb in "${DEBS[@]}"; do
    test_package "$deb"
done
[ ${#DEBS[@]} -lt 2 ] || test_side_by_side "${DEBS[@]}"

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
echo "==> the .deb$([ ${#DEBS[@]} -lt 2 ] || echo s) install$([ ${#DEBS[@]} -ge 2 ] || echo s), upgrade$([ ${#DEBS[@]} -ge 2 ] || echo s), remove$([ ${#DEBS[@]} -ge 2 ] || echo s) and purge$([ ${#DEBS[@]} -ge 2 ] || echo s) cleanly${PRODUCTS[1]:+, side by side too}"
