#!/usr/bin/env bash
# The arm64 lane: both daemons built for the Raspberry Pi's processor (aarch64 Linux) on this
# x86_64 machine, run under qemu-user, shipped as .debs for trixie (Raspberry Pi OS trixie), and
# the whole Swift test suite built and run for aarch64. Called by scripts/test.sh; alone:
#
#   scripts/arm64/check.sh [--prebuilt] [--x86-bin DIR] [--tests all|package|none]
#     --prebuilt      take the aarch64 release builds as they are (scripts/test.sh has just made
#                     them, for the arm64 HIL as well), without asking SwiftPM again
#     --x86-bin DIR   the x86_64 release binaries to compare with (default: scripts/release-build.sh's;
#                     built first when missing)
#     --tests all     (the default) every test module of the package and of each example
#                     package, under qemu (scripts/arm64/tests.sh all; scripts/test.sh runs
#                     these beside its lanes)
#     --tests package every test module of the package alone (scripts/arm64/tests.sh package)
#     --tests none    everything but the test suite (its build and its run under qemu)
#     --skip-tests    the same as --tests none
#
# 1. the Swift SDK (scripts/arm64/sdk.sh; cached in $ARM64_CACHE), its compiler's version said;
# 2. the builds users ship, for aarch64 (scripts/release-build.sh --arch arm64): turnstiled,
#    gpio-contract, controller-checks and every example package's daemon (barrierd), each at most
#    25 MB stripped (scripts/size-check.sh);
# 3. the same output: every daemon's `simulate` demo (text and --json), a seeded breakage run,
#    and every held scenario (Fuzz/corpus/scenario/, each package's packaging/loop-check.txt), on
#    aarch64 under qemu and on x86_64: standard output, standard error and exit status byte for
#    byte the same;
# 4. `run` on the simulated board with the store, HTTP, the control socket and MQTT (mosquitto on
#    this machine), its event loop allocating nothing (scripts/check-loop-allocations.sh on the
#    aarch64 binary, its malloc counter cross-compiled);
# 5. the .debs (scripts/package-deb.sh --arch arm64): built, read by dpkg-deb (and lintian when
#    installed), installed with `apt install ./…` into a fresh trixie arm64 root under qemu, where
#    `DAEMON check --board` passes on the Raspberry Pi board files and `DAEMON simulate` holds;
#    then purged;
# 6. the tests of the package, built for aarch64 and run under qemu in the SDK's root, one test
#    module at a time (its time printed), optimized as shipped: scripts/arm64/tests.sh.
# Needs root (the SDK's chroot, binfmt_misc) and what scripts/lib/packages.sh declares for
# "arm64".
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib/arm64.sh

x86_bin=""
tests_scope=all
prebuilt=0
usage() { echo "usage: $0 [--prebuilt] [--x86-bin DIR] [--tests all|package|none]" >&2; exit 64; }
while [ $# -gt 0 ]; do
    case $1 in
        --x86-bin) [ $# -ge 2 ] || usage; x86_bin=$2; shift 2 ;;
        --tests)
            [ $# -ge 2 ] || usage
            case $2 in all | package | none) tests_scope=$2 ;; *) usage ;; esac
            shift 2
            ;;
        --skip-tests) tests_scope=none; shift ;;
        --prebuilt) prebuilt=1; shift ;;
        *) usage ;;
    esac
done

STEP_PREFIX="arm64: " STEP_TITLE="arm64 lane"
. scripts/lib/step-times.sh

# The controllers beside the turnstile, as scripts/test.sh finds them: "PACKAGE_PATH PRODUCT".
examples=()
for conf in Examples/*/packaging/product.conf; do
    [ -f "$conf" ] || continue
    examples+=("${conf%/packaging/product.conf} $(sed -n 's/^PRODUCT=//p' "$conf")")
done

step "the Swift SDK for aarch64 from Debian's packages (scripts/arm64/sdk.sh)"
scripts/arm64/sdk.sh
arm64_binfmt
export QEMU_LD_PREFIX=$ARM64_SYSROOT
echo "    compiler: $(arm64_swift_version) (Debian sid's swiftlang $(cat "$ARM64_SWIFT_TREE/.version"))"

if [ "$prebuilt" = 0 ]; then
    step "the builds users ship, for aarch64 (scripts/release-build.sh --arch arm64)"
    scripts/release-build.sh --arch arm64 turnstiled gpio-contract controller-checks
    for example in "${examples[@]}"; do
        scripts/release-build.sh --arch arm64 --package-path "${example% *}" "${example#* }"
    done
fi
bin=$(scripts/release-build.sh --arch arm64 --show-bin-path)
daemons=(turnstiled)
for example in "${examples[@]}"; do daemons+=("${example#* }"); done
for daemon in "${daemons[@]}"; do
    file "$bin/$daemon" | grep 'ARM aarch64' >/dev/null || { echo "error: $bin/$daemon is not an aarch64 program: $(file -b "$bin/$daemon")" >&2; exit 1; }
done

step "the shipped binaries' size for aarch64: at most 25 MB each, stripped (scripts/size-check.sh)"
for daemon in "${daemons[@]}"; do scripts/size-check.sh "$bin/$daemon"; done

step "the same output on aarch64 (qemu) as on x86_64: demos, a seeded breakage run, every held scenario"
if [ -z "$x86_bin" ]; then
    x86_bin=$(scripts/release-build.sh --show-bin-path)
    [ -x "$x86_bin/turnstiled" ] || scripts/release-build.sh turnstiled
    for example in "${examples[@]}"; do
        [ -x "$x86_bin/${example#* }" ] || scripts/release-build.sh --package-path "${example% *}" "${example#* }"
    done
fi
scenarios=(Fuzz/corpus/scenario/*.txt packaging/loop-check.txt Examples/*/packaging/loop-check.txt)
compared=0
# same DAEMON ARGS...: the two builds' stdout, stderr and exit status, byte for byte.
same() {
    local daemon=$1 arch status
    shift
    for arch in x86_64 aarch64; do
        local program=$x86_bin/$daemon
        [ "$arch" = x86_64 ] || program=$bin/$daemon
        status=0
        (cd "$work" && "$program" "$@" >"$work/$arch.out" 2>"$work/$arch.err") || status=$?
        echo "$status" >"$work/$arch.status"
        # A path in a message is the build's own: the same for both once the folder is named.
        sed -i "s|$program|DAEMON|g" "$work/$arch.out" "$work/$arch.err"
    done
    for part in out err status; do
        if ! cmp -s "$work/x86_64.$part" "$work/aarch64.$part"; then
            echo "error: $daemon $* differs on aarch64 ($part):" >&2
            diff "$work/x86_64.$part" "$work/aarch64.$part" | sed -n 1,40p >&2
            exit 1
        fi
    done
    compared=$((compared + 1))
}
for daemon in "${daemons[@]}"; do
    same "$daemon" simulate
    same "$daemon" simulate --json
    same "$daemon" simulate --json --seed 7 --break-probability 0.3
    for scenario in "${scenarios[@]}"; do
        [ -f "$scenario" ] || continue
        same "$daemon" simulate --json --script "$PWD/$scenario"
        same "$daemon" simulate --script "$PWD/$scenario"
    done
done
echo "    $compared runs: stdout, stderr and exit status the same on aarch64 and x86_64"

step "run on the simulated board for aarch64 (store, HTTP, control socket, MQTT): its event loop allocates nothing"
for daemon in "${daemons[@]}"; do
    DAEMON=$bin/$daemon scripts/check-loop-allocations.sh "$daemon"
done

step "the arm64 .debs: built, read, installed into a fresh trixie arm64 root, checked there, purged"
debs=()
for daemon in "${daemons[@]}"; do
    scripts/package-deb.sh --arch arm64 --product "$daemon" --binary "$bin/$daemon"
    deb=$(ls -t .build-deb/"${daemon}"_*_arm64.deb | sed -n 1p)
    dpkg-deb --info "$deb" >/dev/null
    dpkg-deb --contents "$deb" >/dev/null
    if command -v lintian >/dev/null 2>&1; then
        if out=$(lintian "$deb" 2>&1 | grep -E '^[EW]: '); then echo "error: lintian $deb: $out" >&2; exit 1; fi
        echo "    lintian $deb: no errors or warnings"
    fi
    debs+=("$deb")
done
target=$work/trixie-arm64
mkdir -p "$target"
tar -C "$target" -xf "$ARM64_CACHE/trixie-arm64-clean.tar"
mkdir -p "$target/tmp/debs"
cp "${debs[@]}" "$target/tmp/debs/"
in_target() {
    unshare --mount --propagation private bash -c 'mount -t proc proc "$1/proc"; mount --rbind /dev "$1/dev"; exec chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive sh -c "$2"' in_target "$target" "$1"
}
in_target 'apt-get -q -o Acquire::Check-Valid-Until=false update' >"$work/apt.log" 2>&1 || { tail -n 20 "$work/apt.log" >&2; exit 1; }
in_target 'apt-get install -y -q /tmp/debs/*.deb' >"$work/apt.log" 2>&1 || { echo "error: apt install of ${debs[*]} in a trixie arm64 root failed:" >&2; tail -n 30 "$work/apt.log" >&2; exit 1; }
for daemon in "${daemons[@]}"; do
    in_target "dpkg -s $daemon" | grep -E '^(Version|Depends):' | sed "s/^/    $daemon /"
    for board in "$target/usr/share/$daemon/boards/"raspberry-pi-*.toml; do
        [ -f "$board" ] || continue
        in_target "$daemon check --board /usr/share/$daemon/boards/$(basename "$board")" >"$work/check.out" 2>&1 \
            || { echo "error: $daemon check --board $(basename "$board") failed in the trixie arm64 root:" >&2; cat "$work/check.out" >&2; exit 1; }
        echo "    $daemon check --board $(basename "$board"): passes in the trixie arm64 root"
    done
    in_target "$daemon check --board /etc/$daemon/board.toml" >/dev/null
    in_target "$daemon simulate --json" >"$work/installed.json"
    "$x86_bin/$daemon" simulate --json >"$work/x86.json"
    cmp -s "$work/installed.json" "$work/x86.json" \
        || { echo "error: the installed $daemon's simulate differs from x86_64's" >&2; diff "$work/x86.json" "$work/installed.json" | sed -n 1,20p >&2; exit 1; }
    echo "    $daemon simulate (installed from the .deb): the same as on x86_64"
done
in_target "apt-get purge -y -q ${daemons[*]}" >"$work/apt.log" 2>&1 || { tail -n 20 "$work/apt.log" >&2; exit 1; }
for daemon in "${daemons[@]}"; do
    [ ! -e "$target/usr/bin/$daemon" ] && [ ! -e "$target/etc/$daemon" ] \
        || { echo "error: apt purge left $daemon's files" >&2; exit 1; }
done
echo "    purged: nothing of ${daemons[*]} left"

if [ "$tests_scope" != none ]; then
    step "the tests, built for aarch64 and run under qemu (scripts/arm64/tests.sh $tests_scope)"
    scripts/arm64/tests.sh "$tests_scope"
fi
step ""
echo "==> arm64: all checks passed"
