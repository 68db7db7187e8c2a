# shellcheck shell=bash
# What each check needs from the package manager, declared once, and the one way every script
# here installs it. Sourced, not run: by scripts/test.sh, which installs what its whole run needs
# once, up front, before its two lanes start; and by each script that needs something
# (scripts/hil/prepare.sh, check-status-endpoints.sh, test-deb.sh, bench.sh), so that a script
# run alone still installs its own (under test.sh it finds nothing missing and calls no apt-get).
#
# Why up front: the two lanes of test.sh used to install at once (lane a's VM preparation, lane
# b's Chromium for the status page), and the second apt-get failed on the package manager's
# lock; the run stopped, and the killed lane left packages unpacked but not configured. A machine
# that already had the packages never showed it. Why every call waits: someone else may hold the
# lock (unattended-upgrades, a person, another run); each apt-get and dpkg here waits for it, at
# most PACKAGES_LOCK_TIMEOUT seconds (default 300: a large upgrade's unpacking, not a hung one).
#
#   packages_ensure CHECK...   installs what the CHECKs lack: one apt-get update, one apt-get
#                              install of the union (again only for what depends on what that
#                              installed: the HIL's kernel headers and source are those of the
#                              kernel it installs), then pip; finishes a half-done package
#                              manager before and after; says which packages failed, for which
#                              check, and apt's reason
#   packages_missing CHECK...  prints what they lack, "apt NAME CHECK" or "pip NAME CHECK" a line
#   packages_repair            when dpkg --audit finds anything: dpkg --configure -a, apt-get -f
#                              install, what was half installed installed again; fails naming
#                              the packages when that does not mend them
#   packages_apt_get ARGS...   apt-get as root, non-interactive, waiting for the locks
#   packages_hil_kernel        sets HIL_KPKG, HIL_KVER, HIL_KDEBVER, HIL_KSERIES: the kernel
#                              linux-image-amd64 depends on (fails when it is not installed)
#
# CHECKs: core (building and the Swift tests), size, loop_allocations, mqtt_broker, crash, site,
# hil, hil_arm64, status, deb, bench, edge_latency, arm64.

PACKAGES_LOCK_TIMEOUT=${PACKAGES_LOCK_TIMEOUT:-300}

# ---- what each check needs -------------------------------------------------------------------
# _packages_need_CHECK prints what CHECK lacks on this machine, "apt NAME" or "pip NAME" a line
# (NAME as apt-get or pip takes it; an apt NAME may be NAME=VERSION). It asks the machine each
# time, so after an install it prints only what is still lacking.

# _packages_installed PKG [VERSION]: dpkg has PKG installed and configured (at VERSION). Not
# `dpkg -s`, which also succeeds for a package removed with its configuration files kept.
_packages_installed() {
    local st
    st=$(dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null) || return 1
    case $st in "install ok installed "*) ;; *) return 1 ;; esac
    [ -z "${2:-}" ] || [ "${st##* }" = "$2" ]
}
_apt_unless_installed() { local p; for p; do _packages_installed "$p" || echo "apt $p"; done; }
_apt_unless_command() {   # _apt_unless_command COMMAND PACKAGE
    command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/sbin/$1" ] || echo "apt $2"
}
_pip_unless_module() {    # _pip_unless_module MODULE PIP-NAME
    python3 -c "import $1" >/dev/null 2>&1 || echo "pip $2"
}

_packages_need_core() {
    # Building needs Swift alone: libgpiod and SQLite are opened at run time (dlopen), so no
    # headers and no pkg-config. The count store's tests need SQLite's library (Swift's own
    # install needs it).
    _apt_unless_installed libsqlite3-0
    # libgpiod's library, not its headers: the binaries build without it and open it at run time;
    # the tests of `run` and `lines` on a real board's chip find it (1.6 here; the HIL runs 1.6
    # and 2.3).
    _packages_installed libgpiod2 || _packages_installed libgpiod3 || echo "apt libgpiod2"
    # The SCXML loader (scxml-run, its tests) reads documents with libxml2, opened at run time
    # as SQLite is: its library, not libxml2-dev.
    _apt_unless_installed libxml2
    # The MQTT client's tests run against Debian's broker (scripts/mqtt-broker.sh makes its
    # password file and its certificates with mosquitto_passwd and openssl); the client opens
    # libmosquitto at run time. Under test.sh they must run (CONTROLLER_MQTT_REQUIRE_BROKER=1):
    # without these a test run would skip them.
    _apt_unless_installed mosquitto mosquitto-clients libmosquitto1 openssl
    # The site page's test draws it in headless Chromium (its script's redraw is what it checks),
    # and the pages' scripts are parsed and run in it (PageScriptTests: a syntax error fails), as
    # CONTROLLER_REQUIRE_BROWSER=1 under test.sh requires.
    command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || echo "apt chromium"
    _apt_unless_installed fonts-liberation
    _packages_need_mqtt_broker
    # scripts/check-docs.sh reads the package's library products with Python.
    _apt_unless_command python3 python3
    # Home Assistant's discovery templates are rendered by Jinja, its template engine, in
    # DiscoveryTemplateTests.
    python3 -m pip --version >/dev/null 2>&1 || echo "apt python3-pip"
    _pip_unless_module jinja2 Jinja2
}

# scripts/mqtt-broker.sh: the throwaway broker (mosquitto, mosquitto_passwd), its certificates
# (openssl), its free ports (ss, from iproute2).
_packages_need_mqtt_broker() {
    _apt_unless_installed mosquitto openssl
    _apt_unless_command ss iproute2
}

# scripts/size-check.sh: nm and strip.
# scripts/check-arm64.sh: the core cross-compiled for aarch64 Linux, linked against Debian's cross
# C library and run under user-mode qemu.
_packages_need_arm64() {
    _apt_unless_installed qemu-user-static libc6-dev-arm64-cross libgcc-12-dev-arm64-cross
    # scripts/arm64/sdk.sh: the roots of the aarch64 Swift SDK (a sid amd64 root, a trixie arm64
    # one); scripts/package-deb.sh --arch arm64: dpkg-shlibdeps reads aarch64 binaries with the
    # cross objdump.
    _apt_unless_installed mmdebstrap arch-test binutils-aarch64-linux-gnu
}

_packages_need_size() { _apt_unless_command nm binutils; _apt_unless_command strip binutils; }

# scripts/check-loop-allocations.sh: a C compiler for its malloc counter, and the site's broker
# (required under test.sh) with mosquitto_pub. Its settings come from controller-checks, built
# with the daemons.
_packages_need_loop_allocations() {
    _apt_unless_command cc gcc
    _apt_unless_installed mosquitto-clients
    _packages_need_mqtt_broker
}

# scripts/crash-test.sh: nothing the build does not need. It runs controller-checks, built with
# the daemons, which opens the SQLite the count store opens.
_packages_need_crash() { :; }

# scripts/site-test.sh and site-load.sh: mosquitto_pub and mosquitto_sub, and the broker (the
# page's and the sums' checks are controller-checks', built with the daemons).
_packages_need_site() {
    _apt_unless_installed mosquitto-clients
    _packages_need_mqtt_broker
    # The site page (`fleet --http`) is drawn by Chromium, in the fonts the status page uses.
    command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || echo "apt chromium"
    _apt_unless_installed fonts-liberation
}

# scripts/hil/prepare.sh, with the packages' reasons: qemu runs the VM; busybox-static, kmod and
# cpio make its initramfs (xz-utils reads the kernel's source tarball); Debian's kernel boots it;
# gpiod brings libgpiod 1.6's tools and its library (libgpiod2), and the VM gets SQLite's library
# from here too (scripts/hil/run.sh); gcc, make and libc6-dev build gpio-sim.ko and libgpiod 2.3;
# pip fetches the latter's sources (the PyPI sdist), when no pip is found.
_packages_need_hil() {
    _apt_unless_installed qemu-system-x86 busybox-static kmod cpio linux-image-amd64 gpiod \
        gcc make libc6-dev xz-utils libsqlite3-0
    python3 -m pip --version >/dev/null 2>&1 || command -v pip3 >/dev/null 2>&1 \
        || command -v pip >/dev/null 2>&1 || echo "apt python3-pip"
    # Headers for exactly the kernel linux-image-amd64 installs; the source of exactly that
    # Debian version when the archive still has it (gpio-sim.c then matches the running kernel
    # line for line). Known once linux-image-amd64 is installed: packages_ensure's second round.
    packages_hil_kernel || return 0
    _apt_unless_installed "linux-headers-$HIL_KVER"
    local src="linux-source-$HIL_KSERIES"
    if _packages_installed "$src" "$HIL_KDEBVER"; then
        :
    elif apt-cache madison "$src" 2>/dev/null | awk '{print $3}' | grep -x "$HIL_KDEBVER" >/dev/null; then
        echo "apt $src=$HIL_KDEBVER"
    else
        _apt_unless_installed "$src"
    fi
}
# scripts/hil/prepare.sh with HIL_ARCH=arm64 (run.sh --arch arm64), with the packages' reasons:
# qemu-system-arm brings qemu-system-aarch64, which runs the VM; mmdebstrap makes the trixie root
# gpio-sim.ko is cross-built in (the guest's own packages are arm64 .debs, fetched with apt-get
# download and unpacked, not installed); kmod's depmod and modinfo read the arm64 kernel's
# modules; binutils-aarch64-linux-gnu strips the arm64 binaries; qemu-user-static runs the arm64
# busybox once, on the host, for its list of applets; cpio and xz-utils as for amd64.
_packages_need_hil_arm64() {
    _apt_unless_installed qemu-system-arm mmdebstrap kmod binutils-aarch64-linux-gnu \
        qemu-user-static cpio xz-utils
}
packages_hil_kernel() {
    _packages_installed linux-image-amd64 || return 1
    # linux-image-amd64 Depends: linux-image-<version>.
    HIL_KPKG=$(dpkg-query -W -f='${Depends}' linux-image-amd64 | grep -o 'linux-image-[^ ,]*' | sed -n 1p) || true
    [ -n "$HIL_KPKG" ] || return 1
    HIL_KVER=${HIL_KPKG#linux-image-}                                 # e.g. 6.1.0-41-amd64
    HIL_KDEBVER=$(dpkg-query -W -f='${Version}' "$HIL_KPKG") || return 1   # e.g. 6.1.192-2
    HIL_KSERIES=$(echo "$HIL_KVER" | cut -d. -f1,2)                    # e.g. 6.1
}

# scripts/check-status-endpoints.sh: curl; Python with the Prometheus project's parser and
# Pillow (from PyPI, through pip); Chromium draws the page, tesseract reads its screenshot back.
# The run installs without recommended packages (the HIL's kernel and qemu would bring hundreds);
# of Chromium's, the page check uses one: fonts-liberation, the fonts its text is drawn in on the
# machines this check has passed on (it runs with --disable-gpu and --no-sandbox, so neither
# Mesa's drivers nor chromium-sandbox).
_packages_need_status() {
    _apt_unless_command curl curl
    _apt_unless_command python3 python3
    python3 -m pip --version >/dev/null 2>&1 || echo "apt python3-pip"
    command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || echo "apt chromium"
    _apt_unless_installed fonts-liberation
    _apt_unless_command tesseract tesseract-ocr
    _pip_unless_module prometheus_client prometheus_client
    _pip_unless_module PIL pillow
}

# scripts/test-deb.sh: dpkg-shlibdeps, readelf, systemd-analyze, udevadm, adduser, man, and the
# library the packages depend on.
_packages_need_deb() {
    _apt_unless_command dpkg-shlibdeps dpkg-dev
    _apt_unless_command readelf binutils
    _apt_unless_command systemd-analyze systemd
    _apt_unless_command udevadm udev
    _apt_unless_command adduser adduser
    _apt_unless_command man man-db
    _packages_installed libgpiod2 || _packages_installed libgpiod3 || echo "apt libgpiod2"
    # The SCXML loader (scxml-run, its tests) reads documents with libxml2, opened at run time
    # as SQLite is: its library, not libxml2-dev.
    _apt_unless_installed libxml2
}

# scripts/bench.sh: python3; valgrind and objcopy unless SKIP_CALLGRIND.
_packages_need_bench() {
    _apt_unless_command python3 python3
    if [ -z "${SKIP_CALLGRIND:-}" ]; then
        _apt_unless_command valgrind valgrind
        _apt_unless_command objcopy binutils
    fi
}

# Benchmarks/scripts/edge-latency.sh: the HIL VM's, and libgpiod 1.6's static library and header
# (libgpiod-dev), which its C baseline links for the libgpiod 1.6 rows.
_packages_need_edge_latency() {
    _packages_need_hil
    _apt_unless_installed libgpiod-dev
}

_packages_known() {
    local check
    for check; do
        declare -F "_packages_need_${check//-/_}" >/dev/null && continue
        echo "error: scripts/lib/packages.sh declares no check \"$check\"" >&2
        return 2
    done
}
packages_missing() {
    local check
    _packages_known "$@" || return 2
    for check; do
        "_packages_need_${check//-/_}" | sed "s/\$/ $check/"
    done
}

# ---- the package manager ---------------------------------------------------------------------

_packages_as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        echo "error: installing packages needs root, and there is no sudo" >&2
        return 1
    fi
}

# What apt-get and dpkg say, and only they (not a maintainer script), when another process holds
# one of their locks.
_PACKAGES_LOCKED='^E: (Could not get lock|Unable to acquire the dpkg frontend lock|Unable to lock)|^dpkg: error: .*lock.* by another process'

# _packages_retry_while_locked FUNCTION ARGS...: runs FUNCTION SECONDS-LEFT ARGS... (stdin
# /dev/null; its output, stderr too, kept and printed on stdout when it ends; the notes about
# waiting on stderr, as they happen) again while it fails on a lock, until
# PACKAGES_LOCK_TIMEOUT seconds have passed. apt-get waits for dpkg's locks itself when told
# (DPkg::Lock::Timeout, given the seconds left), but apt 2.6 (bookworm) does not for the lists'
# lock `apt-get update` takes, and dpkg waits for none: those are retried here. A lock refused
# is refused before anything is changed, so running the command again is safe.
_packages_retry_while_locked() {
    local fn=$1 deadline=$((SECONDS + PACKAGES_LOCK_TIMEOUT)) out status said=0
    shift
    out=$(mktemp)
    while :; do
        status=0
        "$fn" $((deadline > SECONDS ? deadline - SECONDS : 0)) "$@" </dev/null >"$out" 2>&1 || status=$?
        if [ "$status" -ne 0 ] && [ "$SECONDS" -lt "$deadline" ] && grep -qE "$_PACKAGES_LOCKED" "$out"; then
            if [ "$said" -eq 0 ]; then
                echo "==> waiting for the package manager (at most $PACKAGES_LOCK_TIMEOUT s): $(grep -m1 -E "$_PACKAGES_LOCKED" "$out")" >&2
                said=1
            fi
            sleep 2
            continue
        fi
        if [ "$status" -ne 0 ] && grep -qE "$_PACKAGES_LOCKED" "$out"; then
            echo "==> the package manager's lock was still held after $PACKAGES_LOCK_TIMEOUT s$(grep -m1 -o ' by process [0-9]* ([^)]*)' "$out" || true)" >&2
        elif [ "$status" -eq 0 ] && [ "$said" -eq 0 ] && grep -q 'Waiting for cache lock' "$out"; then
            # apt-get waited by itself (DPkg::Lock::Timeout): say so, once.
            echo "==> waited for the package manager: $(grep -m1 -o 'Waiting for cache lock: [^.]*\.[^.]*' "$out")" >&2
        fi
        cat "$out"
        rm -f "$out"
        return "$status"
    done
}
# Never a question, never a prompt for a configuration file someone changed (the local one is
# kept): a prompt nobody answers would hold the lock for ever.
_packages_apt_get_once() {
    local seconds=$1
    shift
    _packages_as_root env DEBIAN_FRONTEND=noninteractive apt-get \
        -o DPkg::Lock::Timeout="$seconds" \
        -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "$@"
}
_packages_dpkg_once() {
    shift
    _packages_as_root env DEBIAN_FRONTEND=noninteractive dpkg --force-confdef --force-confold "$@"
}
packages_apt_get() { _packages_retry_while_locked _packages_apt_get_once "$@"; }

# The reasons in apt-get's or dpkg's output: its E:/W: and dpkg's error lines, else its end.
_packages_why() {
    local why
    why=$(grep -E '^(E:|W:|dpkg: |Errors were encountered)|^ [^ ].*: |error' <<<"$1" | sed -n 1,20p) || true
    [ -n "$why" ] || why=$(tail -n 20 <<<"$1")
    sed 's/^/    /' <<<"$why" >&2
}

packages_repair() {
    local audit out broken
    audit=$(dpkg --audit 2>&1) || true
    [ -n "$audit" ] || return 0
    # A killed apt-get or dpkg leaves packages unpacked but not configured, or half installed
    # (killed while unpacking), or with triggers pending; apt-get refuses to go on until that is
    # finished.
    echo "==> the package manager was left half done; finishing it. dpkg --audit:" >&2
    sed 's/^/    /' <<<"$audit" >&2
    out=$(_packages_retry_while_locked _packages_dpkg_once --configure -a) \
        || { echo "    dpkg --configure -a failed:" >&2; _packages_why "$out"; }
    out=$(packages_apt_get -f install -y -q) \
        || { echo "    apt-get -f install failed:" >&2; _packages_why "$out"; }
    # What was half installed, dpkg --configure -a cannot finish and apt-get -f install (apt 2.6)
    # fetches and leaves as it was: it is installed again. Only what was being installed (desired
    # "install" or "hold"); a half-done removal is left to the error below.
    broken=$(dpkg-query -W -f='${db:Status-Abbrev}|${binary:Package}\n' 2>/dev/null \
        | awk -F'|' '$1 ~ /^[ih]H/ || $1 ~ /^[ih].R/ { print $2 }') || true
    if [ -n "$broken" ]; then
        # shellcheck disable=SC2086 # one package a word
        out=$(packages_apt_get install --reinstall -y -q --no-install-recommends $broken) \
            || { echo "    apt-get install --reinstall $(echo $broken) failed:" >&2; _packages_why "$out"; }
    fi
    audit=$(dpkg --audit 2>&1) || true
    if [ -n "$audit" ]; then
        echo "error: the package manager is still half done; dpkg --audit says:" >&2
        sed 's/^/    /' <<<"$audit" >&2
        return 1
    fi
    echo "==> the package manager is whole again (dpkg --audit is clean)" >&2
}

# packages_ensure CHECK...
packages_ensure() {
    local -A apt_for=() pip_for=() tried=()
    local kind name check line updated=0 out names=() stuck=() listing
    [ $# -gt 0 ] || return 0
    _packages_known "$@" || return 2
    while :; do
        apt_for=() pip_for=()
        while read -r kind name check; do
            case $kind in
                apt) apt_for[$name]=${apt_for[$name]:+${apt_for[$name]},}$check ;;
                pip) pip_for[$name]=${pip_for[$name]:+${pip_for[$name]},}$check ;;
            esac
        done < <(packages_missing "$@")
        [ ${#apt_for[@]} -gt 0 ] || break
        # What was installed and is still missing (the check looks for a command the package
        # did not bring) would be installed for ever: say so instead.
        stuck=()
        for name in "${!apt_for[@]}"; do
            [ -z "${tried[$name]:-}" ] || stuck+=("$name (for ${apt_for[$name]})")
        done
        if [ ${#stuck[@]} -gt 0 ]; then
            echo "error: apt-get installed these, and their checks still find them missing: ${stuck[*]}" >&2
            return 1
        fi
        mapfile -t names < <(printf '%s\n' "${!apt_for[@]}" | sort)
        listing=""
        for name in "${names[@]}"; do listing+=" $name (${apt_for[$name]})"; done
        echo "==> installing (apt):$listing" >&2
        packages_repair || return 1
        if [ "$updated" -eq 0 ]; then
            out=$(packages_apt_get update -q) || {
                echo "error: apt-get update failed, so none of these could be installed:$listing" >&2
                _packages_why "$out"
                return 1
            }
            updated=1
        fi
        if ! out=$(packages_apt_get install -y -q --no-install-recommends "${names[@]}"); then
            echo "error: apt-get install failed; it was to install:$listing" >&2
            _packages_why "$out"
            packages_repair || true
            return 1
        fi
        packages_repair || return 1
        for name in "${names[@]}"; do tried[$name]=1; done
    done
    [ ${#pip_for[@]} -gt 0 ] || return 0
    mapfile -t names < <(printf '%s\n' "${!pip_for[@]}" | sort)
    listing=""
    for name in "${names[@]}"; do listing+=" $name (${pip_for[$name]})"; done
    echo "==> installing (pip, for this user):$listing" >&2
    # Debian 12 marks its Python as externally managed; these are self-contained wheels.
    if ! out=$(python3 -m pip install --quiet --user "${names[@]}" 2>&1) \
        && ! out=$(python3 -m pip install --quiet --user --break-system-packages "${names[@]}" 2>&1); then
        echo "error: pip install failed; it was to install:$listing" >&2
        _packages_why "$out"
        return 1
    fi
    line=$(packages_missing "$@" | grep '^pip ' | tr '\n' ' ') || true
    if [ -n "$line" ]; then
        echo "error: pip installed these, and their checks still find them missing: $line" >&2
        return 1
    fi
}
